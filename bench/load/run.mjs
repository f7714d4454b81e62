#!/usr/bin/env node
// bench/load (issue 17, item 4): a mixed workload for a fixed time with many connections (listing
// with and without `fields` following `link` headers, definition reads and writes, metafield writes
// good and bad, resource feedback, webhook subscription reads, operator product and inventory item
// updates), on SQLite, on PostgreSQL and on the two-replica cluster of scripts/cluster.sh, three
// runs in a row each. A real receiver is subscribed to inventory_items/update, so every event's lag
// from its write to its receipt is measured. Reports per action throughput, p50/p99 and unexpected
// answers, the event lag, and the memory of the API and sender processes after a full GC before and
// after each run. One command: `pnpm --filter @platform/bench run bench:load` (part of `pnpm bench`).
// Prints its goals and whether this run met them; exit status 1 when a run had an unexpected answer,
// a lost or badly signed event, or memory growth (criterion in report.mjs).
//
// LOAD_SECONDS (10) per run, so the three targets take about 4 minutes here; LOAD_CONNECTIONS (64),
// LOAD_PRODUCTS (20,000), LOAD_RUNS (3), LOAD_TARGETS (sqlite,postgresql,cluster),
// BENCH_DATABASE_URL (a PostgreSQL server to create the database in; without it, a throwaway cluster,
// bench/lib/postgres.mjs), BENCH_NO_README=1 (print the tables, write no file), BENCH_SKIP_BUILD=1,
// LOAD_NODE_OPTIONS (more NODE_OPTIONS for the processes under test, e.g. `--cpu-prof`),
// PLATFORM_ALLOCATOR (deploy/with-allocator.sh: `system` measures glibc's malloc instead of jemalloc).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster } from '../lib/cluster.mjs';
import {
  openSql,
  OPERATOR,
  operatorPost,
  root,
  seedCatalog,
  startApi,
  startSender,
  VERSION,
  waitForListingDocuments,
  writeResults,
} from '../lib/harness.mjs';
import { INSPECT_PORT_OPTION, inspectProcess } from '../lib/inspector.mjs';
import { startPostgres } from '../lib/postgres.mjs';
import { startReceiver } from '../lib/receiver.mjs';
import { report } from './report.mjs';
import { fillListingCaches, fillValidatorCaches } from './warm-up.mjs';
import { costKey, DEFINITIONS, EMITTING, runWorkload } from './workload.mjs';

const SECONDS = Number(process.env.LOAD_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 64);
const PRODUCTS = Number(process.env.LOAD_PRODUCTS ?? 20_000);
const RUNS = Number(process.env.LOAD_RUNS ?? 3);
const TARGETS = (process.env.LOAD_TARGETS ?? 'sqlite,postgresql,cluster').split(',');
/** How long the events of a run may take to arrive after it ends before they count as lost. */
const DELIVERY_WAIT_MS = 60_000;

// What every API process under test gets: production settings but an unlimited rate-limit bucket
// (one app sends the whole load), private receivers allowed (the receiver is on loopback), warn-level
// logs as in every benchmark here, and an inspector that opens only when asked (memory after a GC).
// The senders get the same (the cluster script passes it to every replica and sender).
const ALLOCATOR_ENV = deploymentAllocator();
const SERVER_ENV = {
  PLATFORM_RATE_LIMIT_CAPACITY: '1000000000',
  PLATFORM_RATE_LIMIT_LEAK_PER_SECOND: '1000000000',
  PLATFORM_METAFIELD_RECHECK_INTERVAL_MS: '250',
  PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'true',
  LOG_LEVEL: 'warn',
  NODE_OPTIONS: [INSPECT_PORT_OPTION, process.env.LOAD_NODE_OPTIONS ?? ''].join(' ').trim(),
  ...ALLOCATOR_ENV,
};

/**
 * The allocator the deployment runs the API and the sender with (deploy/with-allocator.sh: jemalloc
 * when installed, PLATFORM_ALLOCATOR=system for glibc's), as the variables the script would set, so
 * the single-process targets are measured as deployed; the cluster's processes start through it.
 */
function deploymentAllocator() {
  const script = join(root, 'deploy', 'with-allocator.sh');
  const env = { PATH: process.env.PATH ?? '', PLATFORM_ALLOCATOR: process.env.PLATFORM_ALLOCATOR ?? 'auto' };
  if (process.env.MALLOC_CONF) env.MALLOC_CONF = process.env.MALLOC_CONF; // (the script keeps one given to it)
  const print = 'process.stdout.write(JSON.stringify({ LD_PRELOAD: process.env.LD_PRELOAD, MALLOC_CONF: process.env.MALLOC_CONF }))';
  const child = spawnSync(script, [process.execPath, '-e', print], { env, encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`deploy/with-allocator.sh: ${child.stderr.trim()}`);
  return JSON.parse(child.stdout);
}
const ALLOCATOR = SERVER_ENV.LD_PRELOAD?.includes('jemalloc') ? `jemalloc (${SERVER_ENV.MALLOC_CONF})` : "glibc's malloc";

if (!process.env.BENCH_SKIP_BUILD) {
  const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(1);
}

/**
 * The system under test of one target: its origin, its API processes (`apis`: each with its own
 * origin), every process whose memory is watched (`processes`: the APIs and senders), its database,
 * teardown.
 */
async function startTarget(kind) {
  if (kind === 'cluster') {
    // (scripts/cluster.sh starts its replicas and senders through deploy/with-allocator.sh itself.)
    const clusterEnv = Object.fromEntries(Object.entries(SERVER_ENV).filter(([name]) => !(name in ALLOCATOR_ENV)));
    const cluster = await startCluster({ ...clusterEnv, PLATFORM_ALLOCATOR: process.env.PLATFORM_ALLOCATOR ?? 'auto' });
    try {
      const seed = await seedCatalog(cluster.databaseUrl, { products: PRODUCTS, tag: 'load' });
      // The replicas render listing documents when they start; the copied rows came after.
      const renderer = await startApi(cluster.databaseUrl);
      await waitForListingDocuments(cluster.databaseUrl);
      await renderer.stop();
      return {
        ...seed,
        label: 'Cluster: 2 replicas behind HAProxy, PostgreSQL, Redis, 2 senders',
        origin: cluster.origin,
        database: cluster.databaseUrl,
        apis: cluster.apis(),
        processes: [...cluster.apis(), ...cluster.senders()],
        stop: cluster.stop,
      };
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }
  let database;
  let dropDatabase;
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-load-'));
    database = join(dir, 'load.db');
    dropDatabase = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const pg = await startPostgres('load');
    database = pg.url;
    dropDatabase = pg.stop;
  }
  const seed = await seedCatalog(database, { products: PRODUCTS, tag: 'load' });
  const api = await startApi(database, SERVER_ENV);
  await waitForListingDocuments(database);
  const sender = startSender(database, { NODE_OPTIONS: SERVER_ENV.NODE_OPTIONS, ...ALLOCATOR_ENV });
  const apis = [{ name: 'api', pid: api.pid, origin: api.origin }];
  return {
    ...seed,
    label: kind === 'sqlite' ? 'SQLite (better-sqlite3): one API process and its sender' : 'PostgreSQL: one API process and its sender',
    origin: api.origin,
    database,
    apis,
    processes: [...apis, { name: 'sender', pid: sender.pid }],
    stop: async () => {
      await sender.stop();
      await api.stop();
      await dropDatabase();
    },
  };
}

/** The app, its receiver and subscription, the definitions, and the ids the workload picks from. */
async function fixtures(target, sql) {
  const created = await operatorPost(target.origin, '/apps', {
    app: { name: 'load', kind: 'private', scopes: ['write_products', 'write_metafields', 'read_inventory'], store_handle: 'bench' },
  });
  const token = created.access_token;
  const receiver = await startReceiver({ secret: created.app.app_secret });
  const adminPost = async (path, body) => {
    const r = await fetch(`${target.origin}/admin/openapi/${VERSION}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (r.status !== 201) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return r.json();
  };
  const { webhook } = await adminPost('/webhooks.json', {
    webhook: { topic: 'inventory_items/update', address: `${receiver.url}/inventory` },
  });
  const definitionIds = [];
  for (const d of DEFINITIONS)
    definitionIds.push((await adminPost('/metafield_definition.json', { definition: { owner_resource: 'products', ...d } })).definition.id);
  // Writes go to the products made through the API (the first 1,000; the rest are SQL copies).
  const ids = async (q) => (await sql.run(q, [target.storeId])).map((r) => String(r.id));
  const productIds = await ids('SELECT id FROM products WHERE store_id = ? ORDER BY id LIMIT 1000');
  const [{ a, b }] = await sql.run('SELECT MIN(id) AS a, MAX(id) AS b FROM products WHERE store_id = ?', [target.storeId]);
  return {
    receiver,
    fx: {
      version: VERSION,
      store: 'bench',
      token,
      operatorToken: OPERATOR,
      productIds,
      firstProductId: Number(a),
      lastProductId: Number(b),
      definitionIds,
      webhookId: webhook.id,
      inventoryItemIds: await ids('SELECT id FROM inventory_items WHERE store_id = ? ORDER BY id LIMIT 2000'),
    },
  };
}

/**
 * Each process's memory after a full collection and twice the deployed allocator's decay (jemalloc
 * gives freed pages back after 1 s: deploy/with-allocator.sh), so a reading counts what the process
 * holds, not what it freed a moment ago. glibc's malloc gives nothing back in that time either way.
 */
const SETTLE_MS = 2000;
const memoryOf = async (inspectors) =>
  Object.fromEntries(await Promise.all(inspectors.map(async ([name, i]) => [name, await i.memory({ settleMs: SETTLE_MS })])));

/**
 * The largest event-loop delay of each API process since the last call (prom-client resets its
 * histogram on every scrape of /metrics): a blocked loop delays every request in the process.
 */
async function eventLoopDelayMax(processes) {
  const scrape = async ({ name, origin }) => {
    const text = await (await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${OPERATOR}` } })).text();
    return [name, Number(/^nodejs_eventloop_lag_max_seconds (\S+)/m.exec(text)?.[1] ?? NaN) * 1000];
  };
  return Object.fromEntries(await Promise.all(processes.map(scrape)));
}

/**
 * The events one run wrote, matched with their receipts. The commit of each lies between two
 * instants we know, so the commit-to-receipt lag lies between two lags (ms): `lags`, from
 * triggered_at (the service clock read as the write began, before its transaction) to the receipt,
 * an upper bound; `answerLags`, from the write's 200 reaching the load generator (after the commit)
 * to the receipt, a lower bound, negative when the event arrived before the answer.
 */
async function eventLags(sql, receiver, { storeId, afterId, expectedTotal, answeredAt }) {
  const ended = performance.now();
  await receiver.waitFor(expectedTotal, DELIVERY_WAIT_MS);
  const drainedMs = performance.now() - ended;
  const rows = await sql.run('SELECT webhook_id, triggered_at, body FROM webhook_deliveries WHERE store_id = ? AND id > ? ORDER BY id', [
    storeId,
    afterId,
  ]);
  const times = await receiver.times(rows.map((r) => r.webhook_id));
  const lags = [];
  const answerLags = [];
  let lost = 0;
  rows.forEach((r, i) => {
    if (times[i] === null) return lost++;
    lags.push(times[i] - new Date(r.triggered_at).getTime());
    const answered = answeredAt.get(costKey(JSON.parse(r.body).inventory_item.cost));
    if (answered !== undefined) answerLags.push(times[i] - answered);
  });
  const { badSignatures } = await receiver.count();
  return { written: rows.length, lags, answerLags, lost, badSignatures, drainedMs };
}

// Interrupted (Ctrl-C), the processes and databases of the target running are stopped first.
const stopping = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    await Promise.allSettled([...stopping].map((stop) => stop()));
    process.exit(130);
  });
}

async function measureTarget(kind) {
  console.log(`bench/load: ${kind}: starting and seeding ${PRODUCTS.toLocaleString('en-US')} products...`);
  const target = await startTarget(kind);
  stopping.add(target.stop);
  const sql = await openSql(target.database);
  let receiver;
  const result = { kind, label: target.label, loadBefore: loadavg()[0], runs: [], memory: [] };
  try {
    let fx;
    ({ receiver, fx } = await fixtures(target, sql));
    const warming = performance.now();
    await fillValidatorCaches(target.origin, target.apis, { token: fx.token, productId: fx.productIds[0] });
    await fillListingCaches(target.apis, { token: fx.token, firstProductId: fx.firstProductId, lastProductId: fx.lastProductId });
    console.log(`bench/load: ${kind}: validator and listing caches filled in ${((performance.now() - warming) / 1000).toFixed(0)} s`);
    const inspectors = await Promise.all(target.processes.map(async ({ name, pid }) => [name, await inspectProcess(pid)]));
    result.memory.push(await memoryOf(inspectors));
    let expectedTotal = 0;
    for (let run = 1; run <= RUNS; run++) {
      const [{ m }] = await sql.run('SELECT COALESCE(MAX(id), 0) AS m FROM webhook_deliveries');
      console.log(`bench/load: ${kind}: run ${run} of ${RUNS} (${SECONDS} s, ${CONNECTIONS} connections)...`);
      await eventLoopDelayMax(target.apis);
      const load = await runWorkload({ origin: target.origin, seconds: SECONDS, connections: CONNECTIONS, fx });
      const loopDelay = await eventLoopDelayMax(target.apis);
      const emitted = load.stats.find((s) => s.name === EMITTING)?.statuses[200] ?? 0;
      expectedTotal += emitted;
      const events = await eventLags(sql, receiver, { storeId: target.storeId, afterId: m, expectedTotal, answeredAt: load.answeredAt });
      result.runs.push({ ...load, loopDelay, events: { ...events, emitted }, loadAverage: loadavg()[0] });
      result.memory.push(await memoryOf(inspectors));
      const requests = load.stats.reduce((n, s) => n + s.latencies.length, 0);
      const unexpected = load.stats.reduce((n, s) => n + s.unexpected, 0);
      console.log(
        `  ${requests} requests (${(requests / load.elapsed).toFixed(0)}/s), ${unexpected} unexpected, ${events.written} events, ${events.lost} lost`,
      );
    }
  } finally {
    await receiver?.close();
    await sql.close();
    stopping.delete(target.stop);
    await target.stop();
  }
  return result;
}

const started = performance.now();
const results = [];
for (const kind of TARGETS) results.push(await measureTarget(kind));
const { text, compact, failed } = report(results, {
  seconds: SECONDS,
  connections: CONNECTIONS,
  products: PRODUCTS,
  totalSeconds: (performance.now() - started) / 1000,
  allocator: ALLOCATOR,
});
writeResults('load', text);
console.log(`\nThe README's summary line:\n${compact}\n`);
if (failed.length > 0) {
  console.error(`bench/load failed:\n- ${failed.join('\n- ')}`);
  process.exit(1);
}
