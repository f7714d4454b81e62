#!/usr/bin/env node
// bench/sdk: iterating 100,000 products with the SDK (`client.admin.listProducts.iterate`) beside a
// hand-written fetch loop that follows the `link` header, against the same API in the same run;
// plus the pacing limiter's own cost. One command: `pnpm --filter @platform/bench run bench:sdk`
// (or `pnpm bench`). Results: bench/results/sdk.md.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { root, seedCatalog, startApi, VERSION, writeResults } from '../lib/harness.mjs';

const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 100_000);
const LIMIT = Number(process.env.BENCH_LIMIT ?? 250);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const build = process.env.BENCH_SKIP_BUILD
  ? { status: 0 }
  : spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);
const { createClient, createLeakyBucket, systemClock } = await import('@platform/sdk');

const dir = mkdtempSync(join(tmpdir(), 'bench-sdk-'));
const dbFile = join(dir, 'bench.db');

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

const { token } = await seedCatalog(dbFile, { products: PRODUCTS, tag: 'sdk' });
const api = await startApi(dbFile);
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
writeResults('sdk', lines.join('\n'));
