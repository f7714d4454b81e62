#!/usr/bin/env node
// Reproduction of a product bug found by bench/load (not a benchmark): on SQLite, a metafield value
// write (POST /products/{id}/metafields.json) fails with 503 "The database is unavailable; try again
// shortly" whenever another process commits to the same file while the write's transaction runs.
// `pnpm start` always has such a process (the embedded webhook sender records its attempts there).
//
// Cause: MetafieldsRepository.writeAll (and updateOne) run a Prisma interactive $transaction, which
// begins DEFERRED and reads (the definitions' fence, the existing values) before writing. Once
// another connection commits after those reads, SQLite cannot upgrade the read snapshot to a write:
// SQLITE_BUSY_SNAPSHOT, at once, without waiting on busy_timeout (or SQLITE_BUSY when the other
// writer still holds the lock). The adapter reports it as kind SocketTimeout, so isDatabaseUnavailable
// answers 503 instead of waiting for the lock (BEGIN IMMEDIATE) or retrying.
//
// Here the other process is a plain writer (better-sqlite3 committing a one-row update every 2 ms),
// so nothing but the value writes goes through the API. Exits 1 while the bug is present.
// Run: `node load/repro/sqlite-value-write-busy.mjs` in bench/ after a build.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { operatorPost, seedCatalog, startApi, VERSION } from '../../lib/harness.mjs';

if (process.argv[2] === 'writer') {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(process.argv[3]);
  db.pragma('busy_timeout = 5000');
  const touch = db.prepare('UPDATE stores SET name = name WHERE id = 1');
  setInterval(() => db.transaction(() => touch.run()).immediate(), 2);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'repro-value-busy-'));
  const file = join(dir, 'repro.db');
  await seedCatalog(file, { products: 1000, tag: 'repro' });
  const api = await startApi(file);
  const { access_token: token } = await operatorPost(api.origin, '/apps', {
    app: { name: 'repro', kind: 'private', scopes: ['write_products', 'write_metafields'], store_handle: 'bench' },
  });
  const post = (path, body) =>
    fetch(`${api.origin}/admin/openapi/${VERSION}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  await post('/metafield_definition.json', {
    definition: { owner_resource: 'products', namespace: 'repro', key: 'code', name: 'Code', type: 'single_line_text_field' },
  });
  const writer = fork(fileURLToPath(import.meta.url), ['writer', file]);
  const statuses = {};
  let sample;
  const end = Date.now() + 10_000;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (Date.now() < end) {
        const r = await post(`/products/${1 + Math.floor(Math.random() * 1000)}/metafields.json`, {
          metafield: { namespace: 'repro', key: 'code', value: 'AB-123' },
        });
        const text = await r.text();
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (r.status >= 500) sample ??= `${r.status} ${text} (traceId ${r.headers.get('traceid')})`;
      }
    }),
  );
  writer.kill();
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
  console.log('value writes by status over 10 s, 16 at a time, another process committing every 2 ms:', statuses);
  if (sample) {
    console.log(`BUG: ${sample}`);
    process.exit(1);
  }
  console.log('No 5xx: the bug is not reproduced.');
}
