#!/usr/bin/env node
// bench/listing: GET /products/products.json?limit=50 through the whole stack against a bare Fastify
// server on the same 100,000-product SQLite file, with both SQLite drivers, first page and deep page.
// One command: `pnpm bench` (from the repository root). Results: bench/results/listing.md and README.
import autocannon from 'autocannon';
import { fork, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const require = createRequire(import.meta.url);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 100_000);
const VERSION = 'v20260901';
const OPERATOR = 'bench-operator-token-0123456789';

const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

const dir = mkdtempSync(join(tmpdir(), 'bench-listing-'));
const dbFile = join(dir, 'bench.db');
const baseEnv = {
  ...process.env,
  DATABASE_URL: `file:${dbFile}`,
  PLATFORM_OPERATOR_TOKEN: OPERATOR,
  PLATFORM_SECRET: 'bench-secret-0123456789abcdef',
  PLATFORM_SEED_DEMO: 'false',
  PLATFORM_SENDER: 'off',
  PLATFORM_RATE_LIMIT_CAPACITY: '1000000000',
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
};

function freePort() {
  return 20000 + Math.floor(Math.random() * 20000);
}

async function waitReady(url) {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not ready: ${url}`);
}

async function startApi(driver) {
  const port = freePort();
  const child = spawn(process.execPath, [join(root, 'apps/api/dist/main.js')], {
    env: { ...baseEnv, PORT: String(port), PLATFORM_SQLITE_DRIVER: driver },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitReady(`http://127.0.0.1:${port}/readyz`);
  return { origin: `http://127.0.0.1:${port}`, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) };
}

async function startBare(driver, storeId) {
  const child = fork(join(here, 'bare.mjs'), [], {
    env: { ...process.env, DB_FILE: dbFile, DRIVER: driver, STORE_ID: storeId, TIME_ZONE: 'UTC' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise((resolve) => child.once('message', (m) => resolve(m.port)));
  return { origin: `http://127.0.0.1:${port}`, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) };
}

async function op(origin, path, body) {
  const r = await fetch(`${origin}/platform/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

/** 1,000 products through the operator API, then copied in SQL up to PRODUCTS rows. */
async function seed() {
  const api = await startApi('libsql');
  await op(api.origin, '/stores', { store: { handle: 'bench', name: 'Bench' } });
  const app = await op(api.origin, '/apps', { app: { name: 'bench', kind: 'private', scopes: ['read_products'], store_handle: 'bench' } });
  for (let start = 0; start < 1000; start += 250) {
    const products = Array.from({ length: 250 }, (_, i) => ({
      title: `Bench product ${start + i}`,
      body_html: `<p>${'Lorem ipsum dolor sit amet. '.repeat(8)}</p>`,
      vendor: 'Bench',
      tags: 'bench, listing',
      images: [{ src: `https://cdn.example.com/${start + i}.png`, alt: 'image' }],
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [
        { sku: `B-${start + i}-S`, price: '19.99', option1: 'S' },
        { sku: `B-${start + i}-M`, price: '21.99', option1: 'M' },
      ],
    }));
    await op(api.origin, '/stores/bench/products', { products });
  }
  await api.stop();
  const Database = require('better-sqlite3');
  const db = new Database(dbFile);
  const storeId = String(db.prepare("SELECT id FROM stores WHERE handle = 'bench'").get().id);
  const copy = db.prepare(
    `INSERT INTO products (store_id, handle, title, status, doc, published_at, created_at, updated_at)
     SELECT store_id, handle, title, status, doc, published_at, created_at, updated_at FROM products WHERE store_id = ? ORDER BY id LIMIT ?`,
  );
  db.transaction(() => {
    let count = db.prepare('SELECT COUNT(*) AS n FROM products').get().n;
    while (count < PRODUCTS) {
      copy.run(storeId, Math.min(1000, PRODUCTS - count));
      count = db.prepare('SELECT COUNT(*) AS n FROM products').get().n;
    }
  })();
  const maxId = String(db.prepare('SELECT MAX(id) AS m FROM products').get().m);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return { token: app.access_token, storeId, deepSince: String(BigInt(maxId) - 60n) };
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

  const api = await startApi(driver);
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
const table = lines.join('\n');
console.log(`\n${table}\n`);
writeFileSync(join(root, 'bench/results/listing.md'), `${table}\n`);

const readmePath = join(root, 'README.md');
const readme = readFileSync(readmePath, 'utf8');
const start = '<!-- bench:listing:start -->';
const end = '<!-- bench:listing:end -->';
if (readme.includes(start) && readme.includes(end)) {
  const updated = readme.replace(new RegExp(`${start}[\\s\\S]*${end}`), `${start}\n${table}\n${end}`);
  writeFileSync(readmePath, updated);
  console.log('README.md benchmark table updated.');
}
