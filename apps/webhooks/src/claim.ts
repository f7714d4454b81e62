import type { Db } from '@platform/db';

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

const DEFAULT_SCAN_LIMIT = 1000;

/** Prisma stores SQLite DateTime as this text; parameters compared with stored values must match it. */
function sqliteTime(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}

function excludeList(ids: readonly bigint[]): string {
  // bigints read from our own tables: printed as decimal digits, nothing else can appear.
  return ids.length === 0 ? '' : `AND subscription_id NOT IN (${ids.map((id) => BigInt(id).toString()).join(',')})`;
}

/** Claims up to `limit` due deliveries; returns their ids. */
export async function claimDue(db: Db, req: ClaimRequest): Promise<bigint[]> {
  if (req.limit <= 0) return [];
  const leaseUntil = new Date(req.realNow.getTime() + req.leaseMs);
  const implausible = new Date(req.realNow.getTime() + 2 * req.leaseMs);
  const scan = Math.max(req.scanLimit ?? DEFAULT_SCAN_LIMIT, req.limit);
  const exclude = excludeList(req.exclude.slice(0, 1000));
  let rows: { id: unknown }[];
  if (db.provider === 'postgresql') {
    rows = await db.prisma.$queryRawUnsafe<{ id: unknown }[]>(
      `WITH due AS (
         SELECT id, subscription_id, next_attempt_at FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= $1
           AND (lease_until IS NULL OR lease_until < $2 OR lease_until > $3) ${exclude}
         ORDER BY next_attempt_at, id LIMIT ${scan}
       ), ranked AS (
         SELECT id, next_attempt_at, ROW_NUMBER() OVER (PARTITION BY subscription_id ORDER BY next_attempt_at, id) AS rn FROM due
       ), picked AS (
         SELECT d.id FROM webhook_deliveries d JOIN ranked r ON r.id = d.id
         WHERE r.rn <= ${req.perSubscription} AND d.status = 'pending'
           AND (d.lease_until IS NULL OR d.lease_until < $2 OR d.lease_until > $3)
         ORDER BY r.rn, r.next_attempt_at, d.id LIMIT ${req.limit}
         FOR UPDATE OF d SKIP LOCKED
       )
       UPDATE webhook_deliveries u SET lease_owner = $4, lease_until = $5
       FROM picked WHERE u.id = picked.id
       RETURNING u.id`,
      req.now,
      req.realNow,
      implausible,
      req.owner,
      leaseUntil,
    );
  } else {
    const [now, real, far, until] = [req.now, req.realNow, implausible, leaseUntil].map(sqliteTime);
    rows = await db.prisma.$queryRawUnsafe<{ id: unknown }[]>(
      `UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?
       WHERE id IN (
         SELECT id FROM (
           SELECT id, next_attempt_at, ROW_NUMBER() OVER (PARTITION BY subscription_id ORDER BY next_attempt_at, id) AS rn
           FROM (
             SELECT id, subscription_id, next_attempt_at FROM webhook_deliveries
             WHERE status = 'pending' AND next_attempt_at <= ?
               AND (lease_until IS NULL OR lease_until < ? OR lease_until > ?) ${exclude}
             ORDER BY next_attempt_at, id LIMIT ${scan}
           )
         ) WHERE rn <= ${req.perSubscription} ORDER BY rn, next_attempt_at, id LIMIT ${req.limit}
       )
       RETURNING id`,
      req.owner,
      until,
      now,
      real,
      far,
    );
  }
  return rows.map((r) => BigInt(r.id as number | bigint | string));
}

/** Gives claims back at once (more than a host may take now, or a clean shutdown). */
export async function releaseClaims(db: Db, ids: readonly bigint[], owner: string): Promise<void> {
  if (ids.length === 0) return;
  await db.prisma.webhookDelivery.updateMany({
    where: { id: { in: [...ids] }, leaseOwner: owner, status: 'pending' },
    data: { leaseOwner: null, leaseUntil: null },
  });
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
export async function loadClaimed(db: Db, ids: readonly bigint[], owner: string): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  const marks = ids.map(() => '?').join(',');
  const rows = await db.query<Row>(
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
