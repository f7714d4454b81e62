// bench/webhooks: what the benchmark (run.mjs), the A/B comparison of two sender builds (ab.mjs) and
// the comparison with graphile-worker (queue.mjs) share: the receiver, the database and its
// fixtures, the sender process, draining a backlog, commit-to-receipt latency at a steady rate, and
// the bare loop's process.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OUTBOX_CHANNEL, wakeSenders } from '@platform/db';
import { startPostgres } from '../lib/postgres.mjs';
import { stoppable } from './processes.mjs';
import { forkWithParent, WITH_PARENT } from '@platform/test-process';

const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, '..', '..');
export const PER_HOST = Number(process.env.BENCH_PER_HOST ?? 4);
export const TOPIC = 'inventory_items/update';
export const VERSION = 'v20260901';
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
// The machine's monotonic clock in ms (CLOCK_MONOTONIC, the same in every process): the receiver
// stamps receipts with it. performance.timeOrigin + now() is not comparable across processes (each
// samples the wall clock once, at its start): it once measured commit-to-receipt at -1 ms.
export const clock = () => Number(process.hrtime.bigint()) / 1e6;

/** Sends `message` to a child process and resolves with its first answer of the same type. */
export function askChild(child, message) {
  return new Promise((resolve) => {
    const on = (m) => {
      if (m.type !== message.type) return;
      child.off('message', on);
      resolve(m);
    };
    child.on('message', on);
    child.send(message);
  });
}

export async function startReceiver() {
  const child = forkWithParent(join(here, 'receiver.mjs'), []);
  const { port } = await new Promise((resolve) => child.once('message', resolve));
  const ask = (type, extra = {}) => askChild(child, { type, ...extra });
  return {
    pid: child.pid,
    url: `http://127.0.0.1:${port}`,
    count: async () => (await ask('count')).count,
    /** Resolves once the receiver counts `n` receipts (it says so when it does: no polling during a drain). */
    waitFor: async (n) => {
      await ask('waitFor', { n });
    },
    times: async (ids) => (await ask('times', { ids })).times,
    maxOpen: async () => (await ask('maxOpen')).maxOpen,
    close: () =>
      new Promise((r) => {
        child.once('exit', r);
        child.send({ type: 'stop' });
      }),
  };
}

export async function database(kind) {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
    return { url: `file:${join(dir, 'bench.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  // A fresh database on the server of BENCH_DATABASE_URL (or TEST_DATABASE_URL).
  // (assigned only when set: process.env would keep an undefined as the string 'undefined')
  if (process.env.TEST_DATABASE_URL) process.env.BENCH_DATABASE_URL ||= process.env.TEST_DATABASE_URL;
  const { url, stop } = await startPostgres('bench_webhooks');
  return { url, drop: stop };
}

export const body = (i) =>
  JSON.stringify({
    inventory_item: { id: String(100000 + i), sku: `SKU-${i}`, tracked: true, cost: '12.50', updated_at: '2026-11-22T12:05:01+08:00' },
  });

/** A store whose app (installed with read_inventory, as the outbox requires) has `count` subscriptions on the receiver. */
export async function storeWithSubscriptions(db, handle, receiverUrl, count) {
  const now = new Date();
  const store = await db.prisma.store.create({
    data: {
      handle,
      name: handle,
      email: 'b@example.com',
      customerEmail: 'b@example.com',
      ianaTimezone: 'Asia/Shanghai',
      merchantId: 1n,
      updatedAt: now,
    },
  });
  const secret = randomBytes(24).toString('hex');
  const app = await db.prisma.app.create({
    data: { name: handle, kind: 'private', appKey: handle, appSecret: secret, storeId: store.id, updatedAt: now },
  });
  await db.prisma.installation.create({ data: { storeId: store.id, appId: app.id, scopes: 'read_inventory', updatedAt: now } });
  const subs = [];
  for (let s = 0; s < count; s++) {
    subs.push(
      await db.prisma.webhookSubscription.create({
        data: {
          storeId: store.id,
          appId: app.id,
          topic: TOPIC,
          address: `${receiverUrl}/${handle}/${s}/`,
          apiVersion: VERSION,
          updatedAt: now,
        },
      }),
    );
  }
  return { store, app, secret, subs };
}

/** Builds the sender and what it needs (BENCH_SKIP_BUILD=1: not), exiting on a failed build. */
export function buildSender() {
  if (process.env.BENCH_SKIP_BUILD) return;
  const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--filter=@platform/webhooks...', '--output-logs=errors-only'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(1);
}

export function startSender(url, main = join(root, 'apps/webhooks/dist/main.js'), extraArgs = []) {
  // BENCH_SENDER_NODE_ARGS='--cpu-prof' profiles the sender process
  const nodeArgs = (process.env.BENCH_SENDER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...WITH_PARENT, ...nodeArgs, ...extraArgs, main], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'true',
      PLATFORM_SENDER_PER_HOST: String(PER_HOST),
      LOG_LEVEL: 'warn',
    },
    stdio: ['pipe', 'inherit', 'inherit'],
  });
  return stoppable(child);
}

/** `n` due deliveries spread over `subs`, committed at once, then the senders woken: deliveries/s until the last receipt. */
export async function drain(db, receiver, fixture, n) {
  const ids = [];
  const rows = Array.from({ length: n }, (_, i) => {
    const at = new Date();
    const webhookId = randomUUID();
    ids.push(webhookId);
    const sub = fixture.subs[i % fixture.subs.length];
    return {
      storeId: fixture.store.id,
      appId: fixture.app.id,
      subscriptionId: sub.id,
      topic: TOPIC,
      webhookId,
      apiVersion: VERSION,
      body: body(i),
      triggeredAt: at,
      nextAttemptAt: at,
      updatedAt: at,
    };
  });
  // PostgreSQL: statistics taken now say nothing is pending (the previous phase drained), as after
  // an autovacuum between two bursts in production; the claim must not depend on them (it once did:
  // docs/webhooks-sender.md). So every run meets that case instead of some.
  if (db.provider === 'postgresql') await db.query('ANALYZE webhook_deliveries');
  // Counted before the commit: the sender may deliver some before the next line runs.
  const target = (await receiver.count()) + n;
  await db.prisma.$transaction(
    async (tx) => {
      for (let i = 0; i < rows.length; i += 500) await tx.webhookDelivery.createMany({ data: rows.slice(i, i + 500) });
    },
    { timeout: 120_000 },
  );
  const t0 = clock();
  await wakeSenders(db);
  return { rate: await receiptRate(receiver, ids, target, t0), bodies: rows.map((r) => r.body) };
}

/** Deliveries/s from `t0` (the bench's clock) to the last receipt of `ids`, once the receiver counts `target`. */
export async function receiptRate(receiver, ids, target, t0) {
  await receiver.waitFor(target);
  const last = Math.max(...(await receiver.times(ids)));
  return ids.length / ((last - t0) / 1000);
}

/**
 * One event a call for the sender of `fixture`'s first subscription: its delivery row committed on
 * its own with the outbox's wake, on PostgreSQL `pg_notify` in the inserting statement's
 * transaction (heard on commit, as the outbox's NOTIFY), on SQLite the wake file after the commit.
 * The row goes in through the driver, not the API's whole write path: this measures the sender,
 * from the commit to the receipt. Resolves with the event's webhook id once committed.
 */
export function outboxCommit(db, fixture) {
  const sub = fixture.subs[0];
  const insert = `INSERT INTO webhook_deliveries (store_id, app_id, subscription_id, topic, webhook_id, api_version, body, triggered_at, next_attempt_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
  return async (i) => {
    const at = new Date();
    const webhookId = randomUUID();
    const values = [fixture.store.id, fixture.app.id, sub.id, TOPIC, webhookId, VERSION, body(i), at, at, at];
    if (db.provider === 'postgresql')
      await db.query(`WITH ins AS (${insert} RETURNING id) SELECT pg_notify('${OUTBOX_CHANNEL}', '') FROM ins`, values);
    else {
      await db.query(insert, values);
      await wakeSenders(db);
    }
    return webhookId;
  };
}

/**
 * `rate` events/s for `seconds` s, each committed by `commit(i)` (resolving with its webhook id), then
 * commit-to-receipt in ms: p50, p99 and max (an event never received counts as Infinity), and the
 * rate the bench reached.
 */
export async function steadyLatency(receiver, commit, rate, seconds) {
  const commits = new Map();
  const total = rate * seconds;
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const webhookId = await commit(i);
    commits.set(webhookId, clock());
  }
  const offered = total / ((performance.now() - start) / 1000);
  const ids = [...commits.keys()];
  let times = await receiver.times(ids);
  for (let tries = 0; times.some((t) => t === null) && tries < 3000; tries++) {
    await sleep(10);
    times = await receiver.times(ids);
  }
  const lat = ids.map((id, i) => (times[i] ?? Infinity) - commits.get(id)).sort((a, b) => a - b);
  return { offered, p50: pct(lat, 50), p99: pct(lat, 99), max: lat[lat.length - 1] };
}

/** The bare loop's process (bare-loop.mjs): `loop(how, count)` runs it once over the bodies it was given. */
export async function startBareLoop(receiver, bodies, secret) {
  const child = forkWithParent(join(here, 'bare-loop.mjs'), []);
  const ask = (message) => askChild(child, message);
  await new Promise((resolve) => child.once('message', resolve)); // ready
  await ask({ type: 'bodies', bodies });
  const loop = (how, count = 0) =>
    ask({ type: 'loop', how, count, url: receiver.url, secret, workers: PER_HOST, topic: TOPIC, version: VERSION });
  // Its warm-up, as the sender's: the JIT and the connections settled before anything counts.
  await loop('request', 5000);
  await loop('client', 5000);
  return {
    loop,
    stop: () =>
      new Promise((r) => {
        child.once('exit', r);
        child.send({ type: 'stop' });
      }),
  };
}
