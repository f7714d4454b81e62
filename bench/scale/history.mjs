// bench/scale: a delivery history of any size, written with the database's own bulk path (one
// INSERT ... SELECT over a generated series a chunk, through the table so the triggers that keep
// webhook_delivery_counts run as they do for the outbox's writes), for one store, one app and two
// subscriptions on the benchmark's receiver. What the rows are:
//   - OLD = total - RECENT delivered (19 in 20) and failed (1 in 20) deliveries finished 31 to 91
//     days ago: past the 30-day retention, so a retention pass removes them;
//   - RECENT = 5,000 deliveries of the last 29 days, of which PENDING = 500 are retries waiting
//     (pending, due in an hour): what a retention pass keeps, the same at every size;
//   - one attempt row for each delivery.
// Ids grow with time, as the outbox writes them.
import { openSql, operatorPost, startApi } from '../lib/harness.mjs';

export const RECENT = 5000;
export const PENDING = 500;
const DAY = 86_400_000;
const TOPIC = 'inventory_items/update';
const VERSION = 'v20260901';

const body = (x) =>
  `'{"inventory_item":{"id":"' || ${x} || '","sku":"SKU-' || ${x} || '","tracked":true,"cost":"12.50","updated_at":"2026-11-22T12:05:01+08:00"}}'`;

/** A DateTime as a parameter: UTC text in the format each database keeps (PostgreSQL: timestamp(3), no zone). */
export const stored = (date, pg) =>
  pg ? date.toISOString().replace('T', ' ').replace('Z', '') : date.toISOString().replace('Z', '+00:00');

/** The SQL of a timestamp `ms` (epoch milliseconds, an SQL expression), as each database stores a DateTime. */
const at = {
  sqlite: (ms) => `strftime('%Y-%m-%dT%H:%M:%f', (${ms}) / 1000.0, 'unixepoch') || '+00:00'`,
  pg: (ms) => `(to_timestamp((${ms}) / 1000.0) AT TIME ZONE 'UTC')`,
};

/**
 * `count` deliveries, the x-th (1..count) made at start + x * step ms; status 'pending' for the last
 * `pending` of them (due in an hour), otherwise failed every 20th and delivered the rest.
 */
async function insertDeliveries(sql, pg, ids, { count, startMs, stepMs, pending, nowMs }) {
  const chunk = pg ? 500_000 : 100_000;
  const time = pg ? at.pg : at.sqlite;
  const made = time(`${startMs} + x * ${stepMs}`);
  const status = `CASE WHEN x > ${count - pending} THEN 'pending' WHEN x % 20 = 0 THEN 'failed' ELSE 'delivered' END`;
  const webhookId = pg ? 'gen_random_uuid()::text' : 'lower(hex(randomblob(16)))';
  for (let from = 1; from <= count; from += chunk) {
    const to = Math.min(count, from + chunk - 1);
    const series = pg
      ? `generate_series(${from}::bigint, ${to}::bigint) AS s(x)`
      : `(WITH RECURSIVE s(x) AS (SELECT ${from} UNION ALL SELECT x + 1 FROM s WHERE x < ${to}) SELECT x FROM s) AS s`;
    await sql.run(
      `INSERT INTO webhook_deliveries (store_id, app_id, subscription_id, topic, webhook_id, api_version, body, triggered_at,
         status, attempts, next_attempt_at, last_error, delivered_at, created_at, updated_at)
       SELECT ${ids.store}, ${ids.app}, CASE WHEN x % 2 = 0 THEN ${ids.subscriptions[0]} ELSE ${ids.subscriptions[1]} END,
         '${TOPIC}', ${webhookId}, '${VERSION}', ${body('x')}, ${made}, st, CASE st WHEN 'failed' THEN 8 ELSE 1 END,
         CASE st WHEN 'pending' THEN ${time(`${nowMs + 3_600_000}`)} ELSE ${made} END,
         CASE st WHEN 'delivered' THEN NULL ELSE 'HTTP 500' END,
         CASE st WHEN 'delivered' THEN ${made} ELSE NULL END, ${made}, ${made}
       FROM (SELECT x, ${status} AS st FROM ${series}) AS rows`,
    );
  }
}

/** One attempt for each delivery, in chunks of ids. */
async function insertAttempts(sql, pg) {
  const [{ lo, hi }] = await sql.run('SELECT MIN(id) AS lo, MAX(id) AS hi FROM webhook_deliveries');
  const chunk = pg ? 500_000 : 100_000;
  for (let from = Number(lo); from <= Number(hi); from += chunk) {
    await sql.run(
      `INSERT INTO webhook_attempts (delivery_id, number, started_at, duration_ms, response_status, error, response_body, created_at)
       SELECT id, 1, created_at, 12, CASE status WHEN 'delivered' THEN 200 ELSE 500 END,
         CASE status WHEN 'delivered' THEN NULL ELSE 'HTTP 500' END, CASE status WHEN 'delivered' THEN 'ok' ELSE 'busy' END, created_at
       FROM webhook_deliveries WHERE id >= ? AND id < ?`,
      [from, from + chunk],
    );
  }
}

/**
 * Store `scale`, its private app and two subscriptions on `receiverUrl`, made through the operator
 * API (which migrates the database), then `total` deliveries in SQL. Returns the handle, the app's
 * id, the first id a retention pass keeps and the counts by status the history must show.
 */
export async function seedHistory(database, { total, receiverUrl }) {
  const pg = database.includes('://');
  const api = await startApi(database);
  await operatorPost(api.origin, '/stores', { store: { handle: 'scale', name: 'Scale' } });
  const app = await operatorPost(api.origin, '/apps', {
    app: { name: 'scale', kind: 'private', scopes: ['read_inventory', 'read_products'], store_handle: 'scale' },
  });
  await api.stop();
  const sql = await openSql(database);
  const [{ id: store }] = await sql.run("SELECT id FROM stores WHERE handle = 'scale'");
  const [{ app_id: appId }] = await sql.run('SELECT app_id FROM installations WHERE store_id = ?', [store]);
  const now = new Date();
  const subscriptions = [];
  for (const path of ['a', 'b']) {
    await sql.run(
      'INSERT INTO webhook_subscriptions (store_id, app_id, topic, address, api_version, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      [store, appId, TOPIC, `${receiverUrl}/${path}`, VERSION, stored(now, pg)],
    );
    subscriptions.push((await sql.run('SELECT MAX(id) AS id FROM webhook_subscriptions'))[0].id);
  }
  const ids = { store, app: appId, subscriptions };
  const recent = Math.min(RECENT, total);
  const old = total - recent;
  const nowMs = now.getTime();
  if (old > 0) await insertDeliveries(sql, pg, ids, { count: old, startMs: nowMs - 91 * DAY, stepMs: (60 * DAY) / old, pending: 0, nowMs });
  const [{ m: lastOld }] = await sql.run('SELECT COALESCE(MAX(id), 0) AS m FROM webhook_deliveries');
  await insertDeliveries(sql, pg, ids, {
    count: recent,
    startMs: nowMs - 29 * DAY,
    stepMs: (29 * DAY - 3_600_000) / recent,
    pending: PENDING,
    nowMs,
  });
  await insertAttempts(sql, pg);
  // The planner's statistics, as the database would have them for a history that grew slowly (and on
  // PostgreSQL the visibility map autovacuum would have set).
  if (pg) await sql.run('VACUUM ANALYZE webhook_deliveries, webhook_attempts');
  else await sql.run('ANALYZE');
  const failedOld = Math.floor(old / 20);
  const recentDone = recent - PENDING;
  const expected = {
    pending: PENDING,
    failed: failedOld + Math.floor(recentDone / 20),
    delivered: old - failedOld + recentDone - Math.floor(recentDone / 20),
  };
  const counts = Object.fromEntries(
    (await sql.run('SELECT status, SUM(n) AS n FROM webhook_delivery_counts GROUP BY status')).map((r) => [r.status, Number(r.n)]),
  );
  await sql.close();
  for (const status of Object.keys(expected)) {
    if ((counts[status] ?? 0) !== expected[status])
      throw new Error(`webhook_delivery_counts: ${status} ${counts[status]}, expected ${expected[status]} (${JSON.stringify(counts)})`);
  }
  return { handle: 'scale', appId: String(appId), firstKept: BigInt(lastOld) + 1n, store: String(store), subscriptions, expected, total };
}
