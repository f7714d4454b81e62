#!/usr/bin/env node
// bench/sdk: iterating 100,000 products with the SDK (`client.admin.listProducts.iterate`) beside a
// hand-written fetch loop that follows the `link` header, against the same API in the same run;
// plus the pacing limiter's own cost. One command: `pnpm --filter @platform/bench run bench:sdk`
// (or `pnpm bench`). Results: bench/results/sdk.md and README.md between the bench:sdk markers.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const require = createRequire(import.meta.url);
const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 100_000);
const LIMIT = Number(process.env.BENCH_LIMIT ?? 250);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const VERSION = 'v20260901';
const OPERATOR = 'bench-operator-token-0123456789';

const build = process.env.BENCH_SKIP_BUILD ? { status: 0 } : spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);
const { createClient, createLeakyBucket, systemClock } = await import('@platform/sdk');

const dir = mkdtempSync(join(tmpdir(), 'bench-sdk-'));
const dbFile = join(dir, 'bench.db');

async function startApi() {
  const child = spawn(process.execPath, [join(root, 'apps/api/dist/main.js')], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: `file:${dbFile}`,
      PLATFORM_OPERATOR_TOKEN: OPERATOR,
      PLATFORM_SECRET: 'bench-secret-0123456789abcdef',
      PLATFORM_SEED_DEMO: 'false',
      PLATFORM_SENDER: 'off',
      PLATFORM_RATE_LIMIT_CAPACITY: '1000000000',
      PLATFORM_RATE_LIMIT_LEAK_PER_SECOND: '1000000000',
      PLATFORM_METAFIELD_RECHECK_INTERVAL_MS: '0',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const origin = await new Promise((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c;
      const m = /Base URL:\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`API exited ${code}: ${out}`)));
  });
  child.stdout.resume();
  return { origin, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) };
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

/** 1,000 products through the operator API, then copied in SQL up to PRODUCTS rows (as bench/listing does). */
async function seed() {
  const api = await startApi();
  await op(api.origin, '/stores', { store: { handle: 'bench', name: 'Bench' } });
  const app = await op(api.origin, '/apps', { app: { name: 'bench', kind: 'private', scopes: ['read_products'], store_handle: 'bench' } });
  for (let start = 0; start < 1000; start += 250) {
    const products = Array.from({ length: 250 }, (_, i) => ({
      title: `Bench product ${start + i}`,
      body_html: `<p>${'Lorem ipsum dolor sit amet. '.repeat(8)}</p>`,
      vendor: 'Bench',
      tags: 'bench, sdk',
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
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return app.access_token;
}

const NEXT = /<([^>]*)>;\s*rel="next"/;

/** What an app team writes without the SDK: GET, parse, follow rel="next" until there is none. */
async function handLoop(origin, token) {
  let url = `${origin}/admin/openapi/${VERSION}/products/products.json?limit=${LIMIT}`;
  let count = 0;
  while (url) {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    const body = await response.json();
    count += body.products.length;
    url = NEXT.exec(response.headers.get('link') ?? '')?.[1];
  }
  return count;
}

async function sdkLoop(client) {
  let count = 0;
  for await (const product of client.admin.listProducts.iterate({ query: { limit: LIMIT } })) count += product.id ? 1 : 0;
  return count;
}

/** Wall time, and this process's CPU time: the client's own work, apart from the server's. */
const time = async (fn) => {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const count = await fn();
  if (count !== PRODUCTS) throw new Error(`iterated ${count} products, expected ${PRODUCTS}`);
  const used = process.cpuUsage(cpu);
  return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 };
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const token = await seed();
const api = await startApi();
const paced = createClient({
  baseUrl: api.origin,
  accessToken: token,
  apiVersion: VERSION,
  // The bench server's bucket is effectively unlimited: the limiter runs on every request but never waits.
  rateLimit: { capacity: 1e9, leakPerSecond: 1e9 },
});
const unpaced = createClient({ baseUrl: api.origin, accessToken: `${token}`, apiVersion: VERSION, rateLimit: false, rateLimitKey: 'x' });
const sides = {
  hand: () => handLoop(api.origin, token),
  sdk: () => sdkLoop(paced),
  sdkNoPacing: () => sdkLoop(unpaced),
};
await time(sides.hand); // warm-up: page cache, JIT
const times = { hand: [], sdk: [], sdkNoPacing: [] };
const cpuTimes = { hand: [], sdk: [], sdkNoPacing: [] };
for (let round = 0; round < ROUNDS; round += 1) {
  // Rotate the order each round, so no side always runs right after the same other one.
  const order = Object.entries(sides);
  for (let i = 0; i < round % order.length; i += 1) order.push(order.shift());
  for (const [name, fn] of order) {
    const { wall, cpu } = await time(fn);
    times[name].push(wall);
    cpuTimes[name].push(cpu);
  }
}
await api.stop();
rmSync(dir, { recursive: true, force: true });

// The limiter alone: acquire() on a bucket that never fills, in process.
const bucket = createLeakyBucket({ capacity: 1e12, leakPerSecond: 1e12, clock: systemClock });
const N = 200_000;
for (let i = 0; i < 10_000; i += 1) await bucket.acquire();
const started = performance.now();
for (let i = 0; i < N; i += 1) await bucket.acquire();
const perAcquireUs = ((performance.now() - started) * 1000) / N;

const pages = Math.ceil(PRODUCTS / LIMIT);
const hand = median(times.hand);
const sdk = median(times.sdk);
const sdkNoPacing = median(times.sdkNoPacing);
const pct = (x, base = hand) => `${x >= base ? '+' : ''}${(((x - base) / base) * 100).toFixed(1)}%`;
const cpu = { hand: median(cpuTimes.hand), sdk: median(cpuTimes.sdk), sdkNoPacing: median(cpuTimes.sdkNoPacing) };
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
const lines = [
  `Run ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}; ` +
    `${PRODUCTS.toLocaleString('en-US')} products, limit=${LIMIT} (${pages} pages), whole product documents, API and client on the same machine; ` +
    `median of ${ROUNDS} interleaved rounds after a warm-up.`,
  '',
  '| Client | Time for all products | Products/s | vs hand loop | Client CPU | vs hand loop |',
  '|---|---:|---:|---:|---:|---:|',
  `| hand-written fetch loop following \`link\` | ${s(hand)} | ${Math.round(PRODUCTS / (hand / 1000))} | | ${s(cpu.hand)} | |`,
  `| SDK \`listProducts.iterate\`, pacing on | ${s(sdk)} | ${Math.round(PRODUCTS / (sdk / 1000))} | ${pct(sdk)} | ${s(cpu.sdk)} | ${pct(cpu.sdk, cpu.hand)} |`,
  `| SDK \`listProducts.iterate\`, pacing off | ${s(sdkNoPacing)} | ${Math.round(PRODUCTS / (sdkNoPacing / 1000))} | ${pct(sdkNoPacing)} | ${s(cpu.sdkNoPacing)} | ${pct(cpu.sdkNoPacing, cpu.hand)} |`,
  '',
  `Pacing limiter alone: ${perAcquireUs.toFixed(2)} µs per request (${N.toLocaleString('en-US')} \`acquire()\` calls on a bucket that never fills). ` +
    `**Goal (SDK within 10% of the hand loop): ${sdk <= hand * 1.1 ? 'met' : 'not met'} in this run** (${pct(sdk)}).`,
];
const table = lines.join('\n');
console.log(`\n${table}\n`);
writeFileSync(join(root, 'bench/results/sdk.md'), `${table}\n`);
const readmePath = join(root, 'README.md');
const readme = readFileSync(readmePath, 'utf8');
const start = '<!-- bench:sdk:start -->';
const end = '<!-- bench:sdk:end -->';
if (readme.includes(start) && readme.includes(end)) {
  writeFileSync(readmePath, readme.replace(new RegExp(`${start}[\\s\\S]*${end}`), `${start}\n${table}\n${end}`));
  console.log('README.md benchmark table updated.');
}
