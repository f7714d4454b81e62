#!/usr/bin/env node
// bench/listing (issue 17): GET /products/products.json?limit=50 through the whole stack, against bare
// node:http servers on the same database in the same run (bare-http.mjs: the stored documents joined
// as strings, and as bytes, the floor), first page and a page near the end, with wrk and 50
// connections, on SQLite (better-sqlite3) and on PostgreSQL. One command: `pnpm bench:listing`.
// Results: bench/results/listing.md. Each row prints its goal and whether it was met.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { root, seedCatalog, startApi, VERSION, waitForListingDocuments, writeResults } from '../lib/harness.mjs';
import { startPostgres } from '../lib/postgres.mjs';
import { ensureWrk, wrk } from '../lib/wrk.mjs';
import { forkWithParent } from '@platform/test-process';

const here = dirname(fileURLToPath(import.meta.url));
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 100_000);
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,postgresql').split(',');

ensureWrk();
const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

async function startBare(mode, database, storeId) {
  const env = database.includes('://') ? { DRIVER: 'pg', DATABASE_URL: database } : { DRIVER: 'better-sqlite3', DB_FILE: database };
  const child = forkWithParent(join(here, 'bare-http.mjs'), [], {
    env: { ...process.env, ...env, MODE: mode, STORE_ID: storeId },
    stdout: 'ignore',
  });
  const port = await new Promise((resolve) => child.once('message', (m) => resolve(m.port)));
  return {
    origin: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((r) => {
        child.once('exit', r);
        child.kill('SIGTERM');
      }),
  };
}

const load = (url, headers = {}) => wrk(url, { connections: CONNECTIONS, duration: DURATION, headers });

async function measure(kind, database) {
  const { token, storeId, maxId } = await seedCatalog(database, { products: PRODUCTS, tag: 'listing' });
  const deep = `&since_id=${BigInt(maxId) - 60n}`;
  const api = await startApi(database, kind === 'sqlite' ? { PLATFORM_SQLITE_DRIVER: 'better-sqlite3' } : {});
  await waitForListingDocuments(database);
  const auth = { authorization: `Bearer ${token}` };
  const listing = `${api.origin}/admin/openapi/${VERSION}/products/products.json?limit=50`;
  load(listing, auth); // warm-up
  const stackFirst = load(listing, auth);
  const stackDeep = load(`${listing}${deep}`, auth);
  await api.stop();
  const bare = {};
  for (const mode of ['string', 'bytes']) {
    const server = await startBare(mode, database, storeId);
    load(`${server.origin}/products.json?limit=50`); // warm-up
    bare[mode] = { first: load(`${server.origin}/products.json?limit=50`), deep: load(`${server.origin}/products.json?limit=50${deep}`) };
    await server.stop();
  }
  return { kind, stackFirst, stackDeep, bare };
}

const results = [];
for (const kind of DATABASES) {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-listing-'));
    results.push(await measure('SQLite (better-sqlite3)', join(dir, 'bench.db')));
    rmSync(dir, { recursive: true, force: true });
  } else {
    const pg = await startPostgres('listing');
    results.push(await measure('PostgreSQL', pg.url));
    await pg.stop();
  }
}

const f = (n) => Math.round(n).toLocaleString('en-US');
const ms = (n) => `${n.toFixed(1)} ms`;
const x = (n) => `${n.toFixed(2)}x`;
const met = (ok) => (ok ? 'met' : '**not met**');
const lines = [
  `Run ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}, load average ${loadavg()[0].toFixed(2)} at the end; ` +
    `${PRODUCTS.toLocaleString('en-US')} products, limit=50, wrk with ${CONNECTIONS} connections for ${DURATION} s per row, on the same machine.`,
  '',
  '| Database | Server | Page | Requests/s | p50 | p99 |',
  '|---|---|---|---:|---:|---:|',
];
const goals = ['', '| Database | Goal | This run | |', '|---|---|---:|---|'];
for (const r of results) {
  for (const [name, first, deep] of [
    ['bare node:http, strings joined', r.bare.string.first, r.bare.string.deep],
    ['bare node:http, bytes concatenated (floor)', r.bare.bytes.first, r.bare.bytes.deep],
    ['whole stack', r.stackFirst, r.stackDeep],
  ]) {
    lines.push(`| ${r.kind} | ${name} | first | ${f(first.rps)} | ${ms(first.p50)} | ${ms(first.p99)} |`);
    lines.push(`| ${r.kind} | ${name} | near the end | ${f(deep.rps)} | ${ms(deep.p50)} | ${ms(deep.p99)} |`);
  }
  const rps = r.stackFirst.rps / r.bare.string.first.rps;
  const p99 = r.stackFirst.p99 / r.bare.string.first.p99;
  const depth = r.stackDeep.p50 / r.stackFirst.p50;
  goals.push(`| ${r.kind} | whole stack requests/s >= 1.0x the string-join server | ${x(rps)} | ${met(rps >= 1)} |`);
  goals.push(`| ${r.kind} | whole stack p99 <= 1.5x the string-join server's | ${x(p99)} | ${met(p99 <= 1.5)} |`);
  goals.push(`| ${r.kind} | page near the end p50 <= 1.2x the first page's | ${x(depth)} | ${met(depth <= 1.2)} |`);
}
writeResults('listing', [...lines, ...goals].join('\n'));
