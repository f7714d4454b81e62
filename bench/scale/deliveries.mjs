// bench/scale, the delivery history (issue 48 §1): on a history of `total` deliveries (history.mjs),
// the cost of what reads or works it, each measured several times, median and p99:
//   - a claim: one delivery made due (a row written as the outbox writes it, then the senders woken
//     as the outbox wakes them), timed from its commit to its arrival at a receiver in this process:
//     the real sender process claims, sends and records it (retention off while measuring);
//   - GET /metrics of the API (operator token);
//   - the operator's deliveries list: the first page, a page from the middle of the history
//     (since_id) and the page after it (its link's page_info);
//   - the merchant's deliveries page of the app (signed in with the operator's one-time link);
// then a retention pass (a sender with the default 30 days, in batches of 10,000) and the database's
// size on disk once it has removed every delivery past the retention age.
import { statSync, utimesSync } from 'node:fs';
import { createServer } from 'node:http';
import { request } from 'undici';
import { OUTBOX_CHANNEL, wakeFileOf } from '@platform/db';
import { OPERATOR, openSql, startApi, startSender, VERSION } from '../lib/harness.mjs';
import { seedHistory, stored } from './history.mjs';
import { summary } from './stats.mjs';

// 100 requests of each, so a p99 is not simply the slowest (of 30 it was, and on PostgreSQL, at a
// few milliseconds, the one slow request of a run decided the claim's ratio: 0.74x, 2.45x and 1.59x
// in three runs of the same code, 2026-12-02).
const ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 100);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A receiver in this process (idle while it waits): resolves `arrival(id)` with the time a webhook id
 * arrived, also when it arrived before `arrival(id)` was asked (a sender can deliver before the
 * statement that made the delivery due has returned to the benchmark: on a fast machine it did, and
 * such a delivery was counted as never arriving).
 */
async function startReceiver() {
  const waiting = new Map();
  const arrived = new Map();
  const server = createServer((req, res) => {
    const id = req.headers['x-platform-webhook-id'];
    const at = performance.now();
    req.resume();
    req.on('end', () => {
      res.writeHead(200).end();
      const resolve = waiting.get(id);
      waiting.delete(id);
      if (resolve) resolve(at);
      else arrived.set(id, at);
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    arrival: (id) =>
      new Promise((resolve) => {
        const at = arrived.get(id);
        arrived.delete(id);
        if (at === undefined) waiting.set(id, resolve);
        else resolve(at);
      }),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Times `fn` `rounds` times, one after the other, after two unmeasured calls. */
async function timed(fn, rounds = ROUNDS) {
  await fn();
  await fn();
  const ms = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await fn();
    ms.push(performance.now() - started);
  }
  return summary(ms);
}

async function get(url, headers = {}) {
  const r = await request(url, { headers });
  const text = await r.body.text();
  if (r.statusCode !== 200) throw new Error(`GET ${url}: ${r.statusCode} ${text.slice(0, 300)}`);
  return { text, headers: r.headers };
}

/** The merchant's session cookie on the store's host, through the operator's one-time sign-in link. */
async function signIn(origin, handle) {
  const link = await request(`${origin}/platform/v1/stores/${handle}/admin_sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPERATOR}` },
  });
  const { url } = await link.body.json();
  const target = new URL(url);
  const r = await request(`${origin}${target.pathname}${target.search}`, { headers: { host: target.host } });
  await r.body.text();
  const cookie = r.headers['set-cookie'];
  if (r.statusCode !== 303 || !cookie) throw new Error(`sign-in: ${r.statusCode}`);
  return { host: target.host, cookie: String(Array.isArray(cookie) ? cookie[0] : cookie).split(';')[0] };
}

/** One delivery made due as the outbox makes it, then the senders woken: its webhook id. */
async function makeDue(sql, database, seeded, n) {
  const pg = database.includes('://');
  const id = `scale-${Date.now()}-${n}`;
  const now = new Date();
  const stamp = stored(now, pg);
  await sql.run(
    `INSERT INTO webhook_deliveries (store_id, app_id, subscription_id, topic, webhook_id, api_version, body, triggered_at, status, attempts, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, 'inventory_items/update', ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
    [seeded.store, seeded.appId, seeded.subscriptions[n % 2], id, VERSION, `{"inventory_item":{"id":"${n}"}}`, stamp, stamp, stamp, stamp],
  );
  if (pg) await sql.run(`NOTIFY ${OUTBOX_CHANNEL}`);
  else {
    try {
      utimesSync(wakeFileOf(`file:${database}`), now, now);
    } catch {
      // No sender watching yet (it makes the file): its first claim finds the row.
    }
  }
  return id;
}

/** Commit-to-receipt of one due delivery at a time, through a running sender. */
async function claims(database, seeded, receiver) {
  const sender = startSender(database, { PLATFORM_SENDER_RETENTION_DAYS: '0', LOG_LEVEL: process.env.BENCH_SCALE_SENDER_LOG ?? 'warn' });
  const sql = await openSql(database);
  let n = 0;
  try {
    return await timed(async () => {
      const arrived = receiver.arrival(await makeDue(sql, database, seeded, n++));
      // One that has not arrived in 30 s counts as 30 s (the run goes on; it shows in the p99).
      let timer;
      const late = new Promise((resolve) => (timer = setTimeout(resolve, 30_000, 'late')));
      if ((await Promise.race([arrived, late])) === 'late')
        console.warn(`  a due delivery did not arrive in 30 s (history of ${seeded.total})`);
      clearTimeout(timer);
    });
  } finally {
    await sql.close();
    await sender.stop();
  }
}

/** The advisory lock a sender's compaction holds (apps/webhooks/src/compact.ts, COMPACTION_LOCK_KEY). */
const COMPACTION_LOCK_KEY = 7_311_050;

/**
 * Starts a sender with the default retention until every delivery past it is gone and, on
 * PostgreSQL, its compaction of the tables is over (the compaction's lock free and the tables'
 * files unchanged for 3 s); seconds it took, the compaction's part apart.
 */
async function retentionPass(database, seeded) {
  const sender = startSender(database, { PLATFORM_SENDER_RETENTION_BATCH: '10000', PLATFORM_SENDER_MAINTENANCE_MS: '500' });
  const sql = await openSql(database);
  const started = performance.now();
  let removedAt;
  try {
    for (;;) {
      const [{ id }] = await sql.run('SELECT MIN(id) AS id FROM webhook_deliveries');
      if (id === null || BigInt(id) >= seeded.firstKept) break;
      await sleep(500);
    }
    removedAt = performance.now();
    if (database.includes('://')) {
      let last = '';
      for (let quiet = 0; quiet < 3;) {
        await sleep(1000);
        const [now] = await sql.run(
          `SELECT pg_total_relation_size('webhook_deliveries') + pg_total_relation_size('webhook_attempts') AS bytes,
             EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = ${COMPACTION_LOCK_KEY}) AS busy`,
        );
        const state = String(now.bytes);
        quiet = !now.busy && state === last ? quiet + 1 : 0;
        last = state;
      }
    }
  } finally {
    await sender.stop();
  }
  const seconds = (removedAt - started) / 1000;
  // Less the 3 quiet seconds that tell it is over.
  const compactSeconds = database.includes('://') ? Math.max(0, (performance.now() - removedAt) / 1000 - 3) : undefined;
  const size = await sizeOnDisk(sql, database);
  await sql.close();
  return { seconds, compactSeconds, ...size };
}

/**
 * SQLite: the file's size after a checkpoint (the WAL emptied), and the pages in use (the rest are
 * free pages that new rows reuse). PostgreSQL: pg_database_size after a VACUUM (as autovacuum would
 * run after the removal; it gives free space back to the tables, not to the disk).
 */
async function sizeOnDisk(sql, database) {
  if (database.includes('://')) {
    await sql.run('VACUUM webhook_deliveries, webhook_attempts');
    const [{ bytes }] = await sql.run('SELECT pg_database_size(current_database()) AS bytes');
    return { bytes: Number(bytes) };
  }
  await sql.run('PRAGMA wal_checkpoint(TRUNCATE)');
  const [{ page_size: pageSize }] = await sql.run('PRAGMA page_size');
  const [{ page_count: pages }] = await sql.run('PRAGMA page_count');
  const [{ freelist_count: free }] = await sql.run('PRAGMA freelist_count');
  return { bytes: statSync(database).size, inUse: (pages - free) * pageSize };
}

/** Every measurement of the history on one database (a fresh one: `database`). */
export async function measureHistory(database, total) {
  const receiver = await startReceiver();
  const seedStarted = performance.now();
  const seeded = await seedHistory(database, { total, receiverUrl: receiver.url });
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  console.log(`  history of ${total}: seeded in ${seedSeconds.toFixed(0)} s`);
  const api = await startApi(database);
  const auth = { authorization: `Bearer ${OPERATOR}` };
  const list = `${api.origin}/platform/v1/stores/${seeded.handle}/webhooks/deliveries`;
  // ids start at 1 on the fresh database: the middle of the history
  const middle = BigInt(Math.floor(total / 2));
  const deep = await get(`${list}?since_id=${middle}`, auth);
  const next = /<([^>]+)>;\s*rel="next"/.exec(deep.headers.link ?? '')?.[1];
  if (!next) throw new Error(`no next page after since_id=${middle}`);
  const page = await signIn(api.origin, seeded.handle);
  const merchant = `${api.origin}/admin/apps/${seeded.appId}/deliveries`;
  const out = {
    total,
    seedSeconds,
    metrics: await timed(() => get(`${api.origin}/metrics`, auth)),
    listFirst: await timed(() => get(list, auth)),
    listDeep: await timed(() => get(`${list}?since_id=${middle}`, auth)),
    listNext: await timed(() => get(new URL(next, api.origin).toString(), auth)),
    merchant: await timed(() => get(merchant, { host: page.host, cookie: page.cookie })),
  };
  await api.stop();
  out.claim = await claims(database, seeded, receiver);
  await receiver.close();
  out.retention = await retentionPass(database, seeded);
  console.log(`  history of ${total}:`, JSON.stringify(out));
  return out;
}
