#!/usr/bin/env node
// Reproduction of a product bug found by bench/load (not a benchmark): a metafield value write
// (POST /products/{id}/metafields.json) answers 500 "Internal Server Error" when the definition it is
// written against is updated (here only its description) while the write runs, three times in a row.
//
// Cause: MetafieldWritesService.writeAll validates, then MetafieldsRepository.writeAll re-reads the
// definitions in its transaction and throws DefinitionChanged when rulesRevision or updated_at moved
// (a description-only PUT moves updated_at too). After ATTEMPTS (3) the DefinitionChanged escapes
// to the error filter, which knows nothing of it: 500, logged as "unhandled error" with its stack.
//
// Here 4 clients update the definition's description in a loop while 16 write values under it.
// `node load/repro/value-write-definition-changed.mjs [postgresql|sqlite]` in bench/ after a build
// (postgresql, the default, on a throwaway cluster or BENCH_DATABASE_URL). Exits 1 while the bug is present.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operatorPost, seedCatalog, startApi, VERSION } from '../../lib/harness.mjs';
import { startPostgres } from '../../lib/postgres.mjs';

const kind = process.argv[2] ?? 'postgresql';
let database;
let drop;
if (kind === 'sqlite') {
  const dir = mkdtempSync(join(tmpdir(), 'repro-definition-changed-'));
  database = join(dir, 'repro.db');
  drop = async () => rmSync(dir, { recursive: true, force: true });
} else {
  const pg = await startPostgres('repro');
  database = pg.url;
  drop = pg.stop;
}
await seedCatalog(database, { products: 1000, tag: 'repro' });
const api = await startApi(database);
const { access_token: token } = await operatorPost(api.origin, '/apps', {
  app: { name: 'repro', kind: 'private', scopes: ['write_products', 'write_metafields'], store_handle: 'bench' },
});
const call = (method, path, body) =>
  fetch(`${api.origin}/admin/openapi/${VERSION}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const definition = { owner_resource: 'products', namespace: 'repro', key: 'code' };
await call('POST', '/metafield_definition.json', { definition: { ...definition, name: 'Code', type: 'single_line_text_field' } });

const statuses = {};
let sample;
let n = 0;
const end = Date.now() + 15_000;
const loop = (send) => async () => {
  while (Date.now() < end) {
    const r = await send();
    const text = await r.text();
    const key = `${r.url.includes('metafield_definition') ? 'definition PUT' : 'value POST'} ${r.status}`;
    statuses[key] = (statuses[key] ?? 0) + 1;
    if (r.status >= 500) sample ??= `${key}: ${text} (traceId ${r.headers.get('traceid')})`;
  }
};
const writeValue = () =>
  call('POST', `/products/${1 + Math.floor(Math.random() * 1000)}/metafields.json`, {
    metafield: { namespace: 'repro', key: 'code', value: 'AB-123' },
  });
const updateDescription = () => call('PUT', '/metafield_definition.json', { definition: { ...definition, description: `update ${++n}` } });
await Promise.all([...Array.from({ length: 16 }, () => loop(writeValue)()), ...Array.from({ length: 4 }, () => loop(updateDescription)())]);
await api.stop();
await drop();
console.log(`${kind}: answers over 15 s, 16 value writers and 4 description updaters at once:`, statuses);
if (sample) {
  console.log(`BUG: ${sample}`);
  process.exit(1);
}
console.log('No 5xx: the bug is not reproduced.');
