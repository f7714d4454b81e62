#!/usr/bin/env node
// bench/webhooks: the webhook sender (apps/webhooks, a real `node dist/main.js` process) delivering to
// a local receiver answering 200, beside a bare undici loop POSTing the same signed bodies to the
// same receiver in the same run. Measures deliveries per second (a backlog drained) and
// commit-to-receipt latency at a steady 500 events/s (receiver in its own process), on SQLite and (with BENCH_DATABASE_URL or
// TEST_DATABASE_URL) PostgreSQL. Results: bench/results/webhooks.md and the README's Benchmarks section.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDb, migrate } from '@platform/db';
import { formatInZone, signWebhookBody } from '@platform/domain';
import pg from 'pg';
import { Agent, request } from 'undici';
import { startReceiver } from '../lib/receiver.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const BACKLOG = Number(process.env.BENCH_DELIVERIES ?? 5000);
const RATE = Number(process.env.BENCH_RATE ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PER_HOST = Number(process.env.BENCH_PER_HOST ?? 16);
const SUBSCRIPTIONS = 4;

if (!process.env.BENCH_SKIP_BUILD) {
  const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--filter=@platform/webhooks...', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(1);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function database(kind) {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
    return { url: `file:${join(dir, 'bench.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const base = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
  const name = `bench_webhooks_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

function body(i) {
  return JSON.stringify({ inventory_item: { id: String(100000 + i), sku: `SKU-${i}`, tracked: true, cost: '12.50', updated_at: '2026-11-22T12:05:01+08:00' } });
}

async function run(kind) {
  const dbInfo = await database(kind);
  await migrate(dbInfo.url);
  const db = createDb(dbInfo.url);
  const now = new Date();
  const store = await db.prisma.store.create({
    data: { handle: 'bench', name: 'Bench', email: 'b@example.com', customerEmail: 'b@example.com', ianaTimezone: 'Asia/Shanghai', merchantId: 1n, updatedAt: now },
  });
  const secret = randomBytes(24).toString('hex');
  const app = await db.prisma.app.create({ data: { name: 'Bench', kind: 'private', appKey: 'bench', appSecret: secret, storeId: store.id, updatedAt: now } });
  const receiver = await startReceiver();
  const subs = [];
  for (let s = 0; s < SUBSCRIPTIONS; s++) {
    subs.push(
      await db.prisma.webhookSubscription.create({
        data: { storeId: store.id, appId: app.id, topic: 'inventory_items/update', address: `${receiver.url}/s${s}`, apiVersion: 'v20260901', updatedAt: now },
      }),
    );
  }
  let seq = 0;
  const rows = (n) =>
    Array.from({ length: n }, () => {
      const i = seq++;
      const at = new Date();
      return {
        storeId: store.id, appId: app.id, subscriptionId: subs[i % SUBSCRIPTIONS].id, topic: 'inventory_items/update', webhookId: randomUUID(),
        apiVersion: 'v20260901', body: body(i), triggeredAt: at, nextAttemptAt: at, updatedAt: at,
      };
    });

  // BENCH_SENDER_NODE_ARGS='--cpu-prof' profiles the sender process
  const nodeArgs = (process.env.BENCH_SENDER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const sender = spawn(process.execPath, [...nodeArgs, join(root, 'apps/webhooks/dist/main.js')], {
    env: { ...process.env, DATABASE_URL: dbInfo.url, PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'true', PLATFORM_SENDER_PER_HOST: String(PER_HOST), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const result = { kind };

  // 1. Throughput: a backlog of BACKLOG deliveries, drained.
  const backlog = rows(BACKLOG);
  for (let i = 0; i < backlog.length; i += 500) await db.prisma.webhookDelivery.createMany({ data: backlog.slice(i, i + 500) });
  // a warm-up delivery first, so process start is not timed
  await db.prisma.webhookDelivery.createMany({ data: rows(1) });
  const t0 = performance.now();
  await receiver.waitFor(BACKLOG + 1);
  result.senderRate = BACKLOG / ((performance.now() - t0) / 1000);

  // 2. Latency: RATE events per second for SECONDS seconds, each commit timed.
  const commits = new Map();
  const tickMs = 10;
  const perTick = Math.max(1, Math.round((RATE * tickMs) / 1000));
  const ticks = Math.round((SECONDS * 1000) / tickMs);
  const start = performance.now();
  for (let t = 0; t < ticks; t++) {
    const batch = rows(perTick);
    await db.prisma.webhookDelivery.createMany({ data: batch });
    const committed = performance.timeOrigin + performance.now();
    for (const r of batch) commits.set(r.webhookId, committed);
    const next = start + (t + 1) * tickMs;
    const wait = next - performance.now();
    if (wait > 0) await sleep(wait);
  }
  result.offeredRate = commits.size / ((performance.now() - start) / 1000);
  await receiver.waitFor(BACKLOG + 1 + commits.size);
  const ids = [...commits.keys()];
  const times = await receiver.times(ids);
  const lat = ids.map((id, i) => times[i] - commits.get(id)).sort((a, b) => a - b);
  result.p50 = pct(lat, 50);
  result.p99 = pct(lat, 99);
  result.max = lat[lat.length - 1];
  await new Promise((r) => { sender.once('exit', r); sender.kill('SIGTERM'); });

  // 3. The bare loop: the same bodies, signed and POSTed with undici by PER_HOST workers.
  const agent = new Agent({ connect: { timeout: 1000 }, headersTimeout: 5000, bodyTimeout: 5000 });
  const bodies = backlog.map((r) => r.body);
  let next = 0;
  const t1 = performance.now();
  await Promise.all(
    Array.from({ length: PER_HOST }, async () => {
      while (next < bodies.length) {
        const i = next++;
        const b = bodies[i];
        const res = await request(`${receiver.url}/bare`, {
          method: 'POST', dispatcher: agent, body: b,
          headers: {
            'content-type': 'application/json', 'x-platform-topic': 'inventory_items/update',
            'x-platform-hmac-sha256': signWebhookBody(Buffer.from(b), secret), 'x-platform-shop-domain': 'bench.localhost',
            'x-platform-shop-id': String(store.id), 'x-platform-merchant-id': '1', 'x-platform-api-version': 'v20260901',
            'x-platform-webhook-id': `bare-${i}`, 'x-platform-triggered-at': formatInZone(new Date(), 'Asia/Shanghai'),
          },
        });
        await res.body.dump();
      }
    }),
  );
  result.bareRate = bodies.length / ((performance.now() - t1) / 1000);
  await agent.close();
  await receiver.close();
  await db.close();
  await dbInfo.drop();
  return result;
}

const kinds = ['sqlite', ...(process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL ? ['postgresql'] : [])];
const results = [];
for (const kind of kinds) {
  console.log(`bench/webhooks: ${kind}...`);
  results.push(await run(kind));
  console.log(results.at(-1));
}

const ms = (x) => `${x.toFixed(1)} ms`;
const cpu = cpus()[0]?.model?.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
const lines = [
  `Run ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores (${cpu}), Node ${process.version}, on a shared machine (load average ${(await import('node:os')).loadavg()[0].toFixed(1)} at the end). ` +
    `Receiver, sender process and bare loop on the same machine; ${SUBSCRIPTIONS} subscriptions on one receiver; ${PER_HOST} in flight per host (PLATFORM_SENDER_PER_HOST) and ${PER_HOST} bare workers.`,
  '',
  '| Database | Sender, deliveries/s (backlog of ' + BACKLOG + ') | Bare undici loop, POSTs/s | Sender / bare | Offered events/s | Commit-to-receipt p50 | p99 | max |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
  ...results.map((r) => `| ${r.kind === 'sqlite' ? 'SQLite (better-sqlite3)' : 'PostgreSQL'} | ${r.senderRate.toFixed(0)} | ${r.bareRate.toFixed(0)} | ${((100 * r.senderRate) / r.bareRate).toFixed(0)}% | ${r.offeredRate.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} |`),
  '',
  ...results.map((r) => {
    const rateOk = r.senderRate >= r.bareRate / 2;
    const latOk = r.p99 < 250;
    return `**Goals on ${r.kind}:** at least half the bare loop's rate: ${rateOk ? 'met' : '**not met**'} (${((100 * r.senderRate) / r.bareRate).toFixed(0)}%); p99 commit-to-receipt under 250 ms at ${RATE} events/s: ${latOk ? 'met' : '**not met**'} (${ms(r.p99)}).`;
  }),
];
const text = lines.join('\n');
writeFileSync(join(here, '..', 'results', 'webhooks.md'), text + '\n');
if (!process.env.BENCH_NO_README) {
  const readme = join(root, 'README.md');
  const current = readFileSync(readme, 'utf8');
  const start = '<!-- bench:webhooks:start -->';
  const end = '<!-- bench:webhooks:end -->';
  if (current.includes(start) && current.includes(end)) {
    writeFileSync(readme, current.slice(0, current.indexOf(start) + start.length) + '\n' + text + '\n' + current.slice(current.indexOf(end)));
  }
}
console.log(text);
