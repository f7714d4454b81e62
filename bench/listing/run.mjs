#!/usr/bin/env node
// bench/listing: GET /products/products.json?limit=50 through the whole stack against a bare Fastify
// server on the same 100,000-product SQLite file, with both SQLite drivers, first page and deep page.
// One command: `pnpm bench` (from the repository root). Results: bench/results/listing.md and README.
import autocannon from 'autocannon';
import { fork, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { root, seedCatalog, startApi, VERSION, writeResults } from '../lib/harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 100_000);

const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

const dir = mkdtempSync(join(tmpdir(), 'bench-listing-'));
const dbFile = join(dir, 'bench.db');

async function startBare(driver, storeId) {
  const child = fork(join(here, 'bare.mjs'), [], {
    env: { ...process.env, DB_FILE: dbFile, DRIVER: driver, STORE_ID: storeId, TIME_ZONE: 'UTC' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise((resolve) => child.once('message', (m) => resolve(m.port)));
  return { origin: `http://127.0.0.1:${port}`, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) };
}

async function seed() {
  const { token, storeId, maxId } = await seedCatalog(dbFile, { products: PRODUCTS, tag: 'listing', env: { PLATFORM_SQLITE_DRIVER: 'libsql' } });
  return { token, storeId, deepSince: String(BigInt(maxId) - 60n) };
}

function load(url, headers) {
  return new Promise((resolve, reject) => {
    autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION }, (err, result) => {
      if (err) return reject(err);
      if (result.non2xx > 0 || result.errors > 0) return reject(new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`));
      resolve({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 });
    });
  });
}

const { token, storeId, deepSince } = await seed();
const rows = [];
for (const driver of ['libsql', 'better-sqlite3']) {
  const bare = await startBare(driver, storeId);
  await load(`${bare.origin}/products.json?limit=50`, {}); // warm-up
  const bareFirst = await load(`${bare.origin}/products.json?limit=50`, {});
  const bareDeep = await load(`${bare.origin}/products.json?limit=50&since_id=${deepSince}`, {});
  await bare.stop();

  const api = await startApi(dbFile, { PLATFORM_SQLITE_DRIVER: driver });
  const auth = { authorization: `Bearer ${token}` };
  const listing = `${api.origin}/admin/openapi/${VERSION}/products/products.json?limit=50`;
  await load(listing, auth); // warm-up
  const stackFirst = await load(listing, auth);
  const stackDeep = await load(`${listing}&since_id=${deepSince}`, auth);
  await api.stop();
  rows.push({ driver, bareFirst, bareDeep, stackFirst, stackDeep });
}
rmSync(dir, { recursive: true, force: true });

const f = (n) => n.toFixed(0);
const ms = (n) => `${n.toFixed(1)} ms`;
const lines = [
  `Run ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}; ` +
    `${PRODUCTS.toLocaleString('en-US')} products, limit=50, ${CONNECTIONS} connections, ${DURATION} s per row, load generator on the same machine.`,
  '',
  '| SQLite driver | Server | Page | Requests/s | p50 | p99 | Stack / bare |',
  '|---|---|---|---:|---:|---:|---:|',
];
for (const r of rows) {
  lines.push(`| ${r.driver} | bare Fastify | first | ${f(r.bareFirst.rps)} | ${ms(r.bareFirst.p50)} | ${ms(r.bareFirst.p99)} | |`);
  lines.push(`| ${r.driver} | bare Fastify | deep | ${f(r.bareDeep.rps)} | ${ms(r.bareDeep.p50)} | ${ms(r.bareDeep.p99)} | |`);
  lines.push(`| ${r.driver} | whole stack | first | ${f(r.stackFirst.rps)} | ${ms(r.stackFirst.p50)} | ${ms(r.stackFirst.p99)} | ${((100 * r.stackFirst.rps) / r.bareFirst.rps).toFixed(0)}% |`);
  lines.push(`| ${r.driver} | whole stack | deep | ${f(r.stackDeep.rps)} | ${ms(r.stackDeep.p50)} | ${ms(r.stackDeep.p99)} | ${((100 * r.stackDeep.rps) / r.bareDeep.rps).toFixed(0)}% |`);
}
writeResults('listing', lines.join('\n'));
