import { planClaims, receivingHost, type ClaimCaps, type DueQueue } from '@platform/domain';
import type { Query, Sql } from './sql';

/**
 * decisions §11.6-§11.7: claiming due deliveries. A claim sets `lease_owner` (unique per claim),
 * `lease_until` (real time) and `lease_host` on deliveries that are pending, due on the SERVICE
 * clock, and free: never leased, lease expired (a crashed sender's), or leased implausibly far ahead
 * (a sender whose real-time clock was wrong). Every later write of the delivery is fenced on
 * `lease_owner`, so a sender whose claim was taken over writes nothing more.
 *
 * A claim takes only what its sender starts at once, so the live claims ARE the attempts in flight,
 * of every sender. Each claim counts them per receiving host and per app and hands out what the caps
 * leave (planClaims in @platform/domain: round-robin across apps, then across an app's
 * subscriptions). Claims are one at a time across all senders (Sql.exclusive: SQLite's one writer;
 * PostgreSQL an advisory lock), so two claims never count the same free slot: the caps hold for all
 * senders together.
 *
 * Finding the work without scanning a backlog: the subscriptions with pending deliveries are walked
 * one index seek each (a recursive "next subscription id" query on (status, subscription_id,
 * next_attempt_at)), and each one's due count and oldest due time are read on the same index. A walk
 * covers at most WALK_LIMIT subscriptions and the next claim goes on from where it stopped.
 */
export interface ClaimRequest {
  /** Service clock (decisions §10): what is due. */
  now: Date;
  /** Real time: lease expiry. */
  realNow: Date;
  leaseMs: number;
  owner: string;
  caps: ClaimCaps;
  /** attempts the sender can start now */
  budget: number;
}

/** Where the walk over subscriptions goes on at the next claim (a sender keeps one). */
export interface WalkCursor {
  after: bigint;
}

export const WALK_LIMIT = 256;

/** A lease held by a live claim: after realNow and not implausibly far ahead. */
const LIVE = 'lease_until > ? AND lease_until <= ?';
const FREE = '(d.lease_until IS NULL OR d.lease_until < ? OR d.lease_until > ?)';
const DUE_OF_SUB = `FROM webhook_deliveries d WHERE d.status = 'pending' AND d.subscription_id = subs.id AND d.next_attempt_at <= ? AND ${FREE}`;

interface QueueRow {
  subscription_id: bigint;
  app_id: bigint | null;
  address: string | null;
  subscription_status: string | null;
  oldest_due: Date | string | null;
  due: bigint;
}

export interface Claimed {
  ids: bigint[];
  /** another claim now could take more (the budget ran out, or the walk stopped short of the end) */
  more: boolean;
}

/** Claims what the caps allow. */
export async function claimDue(sql: Sql, req: ClaimRequest, cursor: WalkCursor): Promise<Claimed> {
  if (req.budget <= 0) return { ids: [], more: false };
  const leaseUntil = new Date(req.realNow.getTime() + req.leaseMs);
  const implausible = new Date(req.realNow.getTime() + 2 * req.leaseMs);
  // No one subscription can take more than this in one claim.
  const countCap = Math.min(req.budget, Math.max(req.caps.perHost, req.caps.perApp));
  return sql.exclusive(async (q) => {
    const live = await q<{ host: string; app_id: bigint; n: bigint }>(
      `SELECT lease_host AS host, app_id, COUNT(*) AS n FROM webhook_deliveries
       WHERE lease_host IS NOT NULL AND status = 'pending' AND ${LIVE} GROUP BY lease_host, app_id`,
      [req.realNow, implausible],
    );
    const inFlightByHost = new Map<string, number>();
    const inFlightByApp = new Map<bigint, number>();
    for (const row of live) {
      inFlightByHost.set(row.host, (inFlightByHost.get(row.host) ?? 0) + Number(row.n));
      inFlightByApp.set(row.app_id, (inFlightByApp.get(row.app_id) ?? 0) + Number(row.n));
    }
    const queues = await walkQueues(q, req, implausible, countCap, cursor);
    const plan = planClaims({ queues, inFlightByHost, inFlightByApp, caps: req.caps, budget: req.budget });
    const ids = plan.length === 0 ? [] : await take(sql, q, plan, { ...req, leaseUntil, implausible });
    return { ids, more: ids.length >= req.budget || cursor.after > 0n };
  });
}

async function walkQueues(q: Query, req: ClaimRequest, implausible: Date, countCap: number, cursor: WalkCursor): Promise<DueQueue[]> {
  const walk = (after: bigint, upTo: bigint | null, limit: number) =>
    q<QueueRow>(
      `WITH RECURSIVE subs(id, n) AS (
         SELECT (SELECT MIN(subscription_id) FROM webhook_deliveries WHERE status = 'pending' AND subscription_id > ?), 1
         UNION ALL
         SELECT (SELECT MIN(subscription_id) FROM webhook_deliveries WHERE status = 'pending' AND subscription_id > subs.id), subs.n + 1
         FROM subs WHERE subs.id IS NOT NULL AND subs.n < ?
       )
       SELECT subs.id AS subscription_id, s.app_id, s.address, s.status AS subscription_status,
              (SELECT MIN(d.next_attempt_at) ${DUE_OF_SUB}) AS oldest_due,
              (SELECT COUNT(*) FROM (SELECT 1 ${DUE_OF_SUB} LIMIT ?) x) AS due
       FROM subs
       LEFT JOIN webhook_subscriptions s ON s.id = subs.id
       WHERE subs.id IS NOT NULL${upTo === null ? '' : ' AND subs.id <= ?'}`,
      [after, limit, req.now, req.realNow, implausible, req.now, req.realNow, implausible, countCap, ...(upTo === null ? [] : [upTo])],
    );
  let rows = await walk(cursor.after, null, WALK_LIMIT);
  if (rows.length >= WALK_LIMIT) cursor.after = rows[rows.length - 1]!.subscription_id;
  else {
    // The end of the ids: wrap around to what the walk started after.
    if (cursor.after > 0n) rows = rows.concat(await walk(0n, cursor.after, WALK_LIMIT - rows.length));
    cursor.after = 0n;
  }
  const queues: DueQueue[] = [];
  for (const row of rows) {
    const due = Number(row.due);
    if (due === 0 || row.oldest_due === null) continue;
    const sendable = row.subscription_status === 'enabled' && row.address !== null;
    queues.push({
      subscriptionId: BigInt(row.subscription_id),
      appId: row.app_id ?? 0n,
      host: sendable ? receivingHost(row.address!) : null,
      due,
      oldestDue: new Date(row.oldest_due),
    });
  }
  return queues;
}

async function take(
  sql: Sql,
  q: Query,
  plan: { subscriptionId: bigint; host: string | null; count: number }[],
  req: ClaimRequest & { leaseUntil: Date; implausible: Date },
): Promise<bigint[]> {
  const pick = `SELECT id FROM webhook_deliveries
    WHERE status = 'pending' AND subscription_id = ? AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ? OR lease_until > ?)
    ORDER BY next_attempt_at, id LIMIT ?`;
  if (sql.db.provider === 'postgresql') {
    // One statement for the whole plan. `u.status` is checked again on the row as updated, in case
    // the API failed the delivery meanwhile (its writes do not take the claim lock).
    const rows = await q<{ id: bigint }>(
      `WITH plan AS (SELECT * FROM unnest(?::bigint[], ?::int[], ?::text[]) AS p(sub, k, host)),
       picked AS (
         SELECT d.id, plan.host FROM plan CROSS JOIN LATERAL (
           SELECT id FROM webhook_deliveries
           WHERE status = 'pending' AND subscription_id = plan.sub AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ? OR lease_until > ?)
           ORDER BY next_attempt_at, id LIMIT plan.k
         ) d
       )
       UPDATE webhook_deliveries u SET lease_owner = ?, lease_until = ?, lease_host = picked.host
       FROM picked WHERE u.id = picked.id AND u.status = 'pending'
       RETURNING u.id`,
      [
        plan.map((p) => p.subscriptionId.toString()),
        plan.map((p) => p.count),
        plan.map((p) => p.host),
        req.now,
        req.realNow,
        req.implausible,
        req.owner,
        req.leaseUntil,
      ],
    );
    return rows.map((r) => BigInt(r.id));
  }
  const ids: bigint[] = [];
  for (const p of plan) {
    const rows = await q<{ id: bigint }>(
      `UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?, lease_host = ? WHERE id IN (${pick}) RETURNING id`,
      [req.owner, req.leaseUntil, p.host, p.subscriptionId, req.now, req.realNow, req.implausible, p.count],
    );
    for (const r of rows) ids.push(BigInt(r.id));
  }
  return ids;
}

/**
 * With nothing due now: when the next pending delivery falls due (service clock), so an idle sender
 * sleeps until then rather than until its next poll. Undefined when nothing is pending.
 */
export async function nextDueAt(sql: Sql, now: Date): Promise<Date | undefined> {
  const [row] = await sql.query<{ at: Date | string | null }>(
    `SELECT MIN(next_attempt_at) AS at FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at > ?`,
    [now],
  );
  return row?.at ? new Date(row.at) : undefined;
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
  /** the host the claim counted it against; null when it was claimed to be failed without an attempt */
  leaseHost: string | null;
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
  lease_host: string | null;
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
    `SELECT d.id, d.subscription_id, d.store_id, d.webhook_id, d.topic, d.api_version, d.body, d.triggered_at, d.attempts, d.lease_host,
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
    leaseHost: r.lease_host,
    subscriptionStatus: r.subscription_status,
    appSecret: r.app_secret,
    handle: r.handle,
    ianaTimezone: r.iana_timezone,
    merchantId: r.merchant_id,
  }));
}

/** Gives a claim back at once (nothing was sent), so the next claim takes it as it should. */
export async function releaseClaim(sql: Sql, id: bigint, owner: string): Promise<void> {
  await sql.query(`UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL, lease_host = NULL WHERE id = ? AND lease_owner = ?`, [id, owner]);
}
