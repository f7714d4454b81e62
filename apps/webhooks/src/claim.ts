import type { Sql } from './sql';

/**
 * decisions §11.6-§11.7: claiming due deliveries. A claim sets `lease_owner` (unique per claim) and
 * `lease_until` (real time) on deliveries that are pending, due on the SERVICE clock, and free:
 * never leased, lease expired (a crashed sender's), or leased implausibly far ahead (a sender whose
 * real-time clock was wrong). Every later write of the delivery is fenced on `lease_owner`, so a
 * sender whose claim was taken over writes nothing more.
 *
 * PostgreSQL: one statement, the candidate rows locked `FOR UPDATE SKIP LOCKED`, so many senders
 * claim side by side without waiting on each other. SQLite: one `UPDATE ... WHERE id IN (...)`
 * statement; SQLite runs one writer at a time, so two claims never take the same row.
 *
 * Fairness: candidates are the oldest `scanLimit` due deliveries, ranked within their subscription;
 * a claim takes at most `perSubscription` of one subscription, lowest ranks first, and skips the
 * subscriptions in `exclude` (those whose receiving host is at its concurrency limit in this
 * sender), so one subscription's backlog never crowds out the others.
 */
export interface ClaimRequest {
  /** Service clock (decisions §10): what is due. */
  now: Date;
  /** Real time: lease expiry. */
  realNow: Date;
  leaseMs: number;
  owner: string;
  limit: number;
  perSubscription: number;
  exclude: readonly bigint[];
  scanLimit?: number;
}

/** Candidates per claim: the oldest due deliveries, this many times the claim's size (fairness window). */
const SCAN_FACTOR = 8;
const MIN_SCAN = 64;

/**
 * Claims up to `limit` due deliveries; returns their ids. One statement through the driver
 * (Db.query): on SQLite every write of the sender goes through that one connection (see
 * record.ts), and the statement text stays the same from claim to claim, so it is prepared once.
 */
export async function claimDue(sql: Sql, req: ClaimRequest): Promise<bigint[]> {
  if (req.limit <= 0) return [];
  const leaseUntil = new Date(req.realNow.getTime() + req.leaseMs);
  const implausible = new Date(req.realNow.getTime() + 2 * req.leaseMs);
  const scan = Math.max(req.scanLimit ?? req.limit * SCAN_FACTOR, MIN_SCAN);
  const exclude = req.exclude.slice(0, 1000).map((id) => BigInt(id).toString());
  let rows: { id: bigint }[];
  if (sql.db.provider === 'postgresql') {
    rows = await sql.query<{ id: bigint }>(
      `WITH due AS (
         SELECT id, subscription_id, next_attempt_at FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= ?
           AND (lease_until IS NULL OR lease_until < ? OR lease_until > ?)
           AND subscription_id <> ALL (?::bigint[])
         ORDER BY next_attempt_at, id LIMIT ?
       ), ranked AS (
         SELECT id, next_attempt_at, ROW_NUMBER() OVER (PARTITION BY subscription_id ORDER BY next_attempt_at, id) AS rn FROM due
       ), picked AS (
         SELECT d.id FROM webhook_deliveries d JOIN ranked r ON r.id = d.id
         WHERE r.rn <= ? AND d.status = 'pending'
           AND (d.lease_until IS NULL OR d.lease_until < ? OR d.lease_until > ?)
         ORDER BY r.rn, r.next_attempt_at, d.id LIMIT ?
         FOR UPDATE OF d SKIP LOCKED
       )
       UPDATE webhook_deliveries u SET lease_owner = ?, lease_until = ?
       FROM picked WHERE u.id = picked.id
       RETURNING u.id`,
      [req.now, req.realNow, implausible, `{${exclude.join(',')}}`, scan, req.perSubscription, req.realNow, implausible, req.limit, req.owner, leaseUntil],
    );
  } else {
    rows = await sql.query<{ id: bigint }>(
      `UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?
       WHERE id IN (
         SELECT id FROM (
           SELECT id, next_attempt_at, ROW_NUMBER() OVER (PARTITION BY subscription_id ORDER BY next_attempt_at, id) AS rn
           FROM (
             SELECT id, subscription_id, next_attempt_at FROM webhook_deliveries
             WHERE status = 'pending' AND next_attempt_at <= ?
               AND (lease_until IS NULL OR lease_until < ? OR lease_until > ?)
               AND subscription_id NOT IN (SELECT value FROM json_each(?))
             ORDER BY next_attempt_at, id LIMIT ?
           )
         ) WHERE rn <= ? ORDER BY rn, next_attempt_at, id LIMIT ?
       )
       RETURNING id`,
      [req.owner, leaseUntil, req.now, req.realNow, implausible, `[${exclude.join(',')}]`, scan, req.perSubscription, req.limit],
    );
  }
  return rows.map((r) => BigInt(r.id));
}

/**
 * Claims up to `limit` due deliveries of ONE subscription, oldest first, on the
 * (subscription_id, status, id) index: the refill of a host that freed a slot while its
 * subscriptions have more due (the general claim skips saturated hosts, so it would have to scan
 * past their whole backlog to find them).
 */
export async function claimDueOfSubscription(sql: Sql, subscriptionId: bigint, req: Omit<ClaimRequest, 'perSubscription' | 'exclude' | 'scanLimit'>): Promise<bigint[]> {
  if (req.limit <= 0) return [];
  const leaseUntil = new Date(req.realNow.getTime() + req.leaseMs);
  const implausible = new Date(req.realNow.getTime() + 2 * req.leaseMs);
  // SQLite's planner would take the (status, next_attempt_at) index and sort every due row.
  const table = sql.db.provider === 'postgresql' ? 'webhook_deliveries' : 'webhook_deliveries INDEXED BY webhook_deliveries_subscription_id_status_id_idx';
  const due = `SELECT id FROM ${table}
       WHERE subscription_id = ? AND status = 'pending' AND next_attempt_at <= ?
         AND (lease_until IS NULL OR lease_until < ? OR lease_until > ?)
       ORDER BY id LIMIT ?`;
  const rows =
    sql.db.provider === 'postgresql'
      ? await sql.query<{ id: bigint }>(
          `WITH picked AS (${due} FOR UPDATE SKIP LOCKED)
           UPDATE webhook_deliveries u SET lease_owner = ?, lease_until = ? FROM picked WHERE u.id = picked.id RETURNING u.id`,
          [subscriptionId, req.now, req.realNow, implausible, req.limit, req.owner, leaseUntil],
        )
      : await sql.query<{ id: bigint }>(`UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ? WHERE id IN (${due}) RETURNING id`, [
          req.owner,
          leaseUntil,
          subscriptionId,
          req.now,
          req.realNow,
          implausible,
          req.limit,
        ]);
  return rows.map((r) => BigInt(r.id));
}

/** Gives claims back at once (more than a host may take now). */
export async function releaseClaims(sql: Sql, ids: readonly bigint[], owner: string): Promise<void> {
  for (const id of ids) {
    await sql.query(`UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ? AND status = 'pending'`, [id, owner]);
  }
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: bigint;
  subscriptionId: bigint;
  storeId: bigint;
  webhookId: string;
  topic: string;
  apiVersion: string;
  body: string;
  triggeredAt: Date;
  attempts: number;
  /** null when the subscription was deleted */
  address: string | null;
  subscriptionStatus: string | null;
  appSecret: string | null;
  handle: string | null;
  ianaTimezone: string | null;
  merchantId: bigint | null;
}

interface Row {
  id: bigint;
  subscription_id: bigint;
  store_id: bigint;
  webhook_id: string;
  topic: string;
  api_version: string;
  body: string;
  triggered_at: Date;
  attempts: bigint;
  address: string | null;
  subscription_status: string | null;
  app_secret: string | null;
  handle: string | null;
  iana_timezone: string | null;
  merchant_id: bigint | null;
}

/** Reads the claimed deliveries (by primary key, fenced on the claim's owner) with their subscription, app and store. */
export async function loadClaimed(sql: Sql, ids: readonly bigint[], owner: string): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  const marks = ids.map(() => '?').join(',');
  const rows = await sql.query<Row>(
    `SELECT d.id, d.subscription_id, d.store_id, d.webhook_id, d.topic, d.api_version, d.body, d.triggered_at, d.attempts,
            s.address, s.status AS subscription_status, a.app_secret, st.handle, st.iana_timezone, st.merchant_id
     FROM webhook_deliveries d
     LEFT JOIN webhook_subscriptions s ON s.id = d.subscription_id
     LEFT JOIN apps a ON a.id = d.app_id
     LEFT JOIN stores st ON st.id = d.store_id
     WHERE d.id IN (${marks}) AND d.lease_owner = ? AND d.status = 'pending'
     ORDER BY d.id`,
    [...ids, owner],
  );
  return rows.map((r) => ({
    id: r.id,
    subscriptionId: r.subscription_id,
    storeId: r.store_id,
    webhookId: r.webhook_id,
    topic: r.topic,
    apiVersion: r.api_version,
    body: r.body,
    triggeredAt: r.triggered_at,
    attempts: Number(r.attempts),
    address: r.address,
    subscriptionStatus: r.subscription_status,
    appSecret: r.app_secret,
    handle: r.handle,
    ianaTimezone: r.iana_timezone,
    merchantId: r.merchant_id,
  }));
}
