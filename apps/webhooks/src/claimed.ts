import type { Query, Sql } from './sql';

/**
 * The due time (service clock) of the first pending delivery nobody holds, or undefined: one index
 * read, so an idle sender's poll costs one statement rather than a claim. (ORDER BY ... LIMIT 1
 * rather than MIN(): see DUE_OF_SUB in walk.ts.)
 */
export async function firstFreeDue(sql: Sql, realNow: Date, leaseMs: number): Promise<Date | undefined> {
  const [row] = await sql.own<{ at: Date | string | null }>(
    `SELECT next_attempt_at AS at FROM webhook_deliveries
     WHERE status = 'pending' AND (lease_until IS NULL OR lease_until < ? OR lease_until > ?) ORDER BY next_attempt_at LIMIT 1`,
    [realNow, new Date(realNow.getTime() + 2 * leaseMs)],
  );
  return row?.at ? new Date(row.at) : undefined;
}

/** When the next pending delivery falls due after a time (parameter; service clock): one index read. */
export const NEXT_DUE = `SELECT next_attempt_at AS at FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at > ? ORDER BY next_attempt_at LIMIT 1`;

/**
 * With nothing due now: when the next pending delivery falls due (service clock), so an idle sender
 * sleeps until then rather than until its next poll. Undefined when nothing is pending.
 */
export async function nextDueAt(sql: Sql, now: Date): Promise<Date | undefined> {
  const [row] = await sql.own<{ at: Date | string | null }>(NEXT_DUE, [now]);
  return row?.at ? new Date(row.at) : undefined;
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: bigint;
  subscriptionId: bigint;
  appId: bigint;
  storeId: bigint;
  webhookId: string;
  topic: string;
  apiVersion: string;
  body: string;
  triggeredAt: Date;
  nextAttemptAt: Date;
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
  /** the traceId of the request that wrote the event (null for events no request wrote) */
  traceId: string | null;
}

/** The delivery's own columns of a ClaimedRow. */
export type DeliveryRow = Omit<ClaimedRow, keyof JoinedRow>;

/** The columns of a ClaimedRow from the delivery's subscription, app and store (null for one deleted). */
export interface JoinedRow {
  address: string | null;
  subscription_status: string | null;
  app_secret: string | null;
  handle: string | null;
  iana_timezone: string | null;
  merchant_id: bigint | null;
}

export interface ClaimedRow {
  id: bigint;
  subscription_id: bigint;
  app_id: bigint;
  store_id: bigint;
  webhook_id: string;
  topic: string;
  api_version: string;
  body: string;
  triggered_at: Date;
  next_attempt_at: Date;
  attempts: bigint;
  address: string | null;
  lease_host: string | null;
  subscription_status: string | null;
  app_secret: string | null;
  handle: string | null;
  iana_timezone: string | null;
  merchant_id: bigint | null;
  trace_id: string | null;
}

/** The delivery's own columns of a ClaimedRow (SQLite: the RETURNING list of a claim's lease, claim.ts). */
export const DELIVERY_COLUMNS =
  'id, subscription_id, app_id, store_id, webhook_id, topic, api_version, body, triggered_at, next_attempt_at, attempts, lease_host, trace_id';

/**
 * PostgreSQL: the RETURNING list of a claim's update of `u` (webhook_deliveries), its subscription's,
 * app's and store's columns from `joined` (the takes of claim.ts and lone.ts): a ClaimedRow.
 */
export function claimedReturning(u: string, joined: string): string {
  return `${u}.id, ${u}.subscription_id, ${u}.app_id, ${u}.store_id, ${u}.webhook_id, ${u}.topic, ${u}.api_version, ${u}.body,
    ${u}.triggered_at, ${u}.next_attempt_at, ${u}.attempts, ${u}.lease_host, ${u}.trace_id, ${joined}.address,
    ${joined}.subscription_status, ${joined}.app_secret, ${joined}.handle, ${joined}.iana_timezone, ${joined}.merchant_id`;
}

/** A claimed delivery from its own columns and its subscription's, app's and store's (`j`: the same row when it has them all, PostgreSQL). */
export function toClaimed(r: DeliveryRow, j: JoinedRow): ClaimedDelivery {
  return {
    id: r.id,
    subscriptionId: r.subscription_id,
    appId: r.app_id,
    storeId: r.store_id,
    webhookId: r.webhook_id,
    topic: r.topic,
    apiVersion: r.api_version,
    body: r.body,
    triggeredAt: r.triggered_at,
    nextAttemptAt: r.next_attempt_at,
    attempts: Number(r.attempts),
    address: j.address,
    leaseHost: r.lease_host,
    subscriptionStatus: j.subscription_status,
    appSecret: j.app_secret,
    handle: j.handle,
    ianaTimezone: j.iana_timezone,
    merchantId: j.merchant_id,
    traceId: r.trace_id,
  };
}

/** SQLite: a delivery's subscription, app and store columns of a ClaimedRow (nulls for any deleted). */
const JOINED = `SELECT s.address, s.status AS subscription_status, a.app_secret, st.handle, st.iana_timezone, st.merchant_id
  FROM (SELECT 1) one LEFT JOIN webhook_subscriptions s ON s.id = ? LEFT JOIN apps a ON a.id = ? LEFT JOIN stores st ON st.id = ?`;

/**
 * SQLite: leased rows as claimed deliveries, their subscription, app and store read once per
 * combination of them (one, as the outbox writes them), in the claim's transaction (`q`).
 */
export async function withTheirOwners(q: Query, leased: readonly DeliveryRow[]): Promise<ClaimedDelivery[]> {
  const joined = new Map<string, JoinedRow>();
  const claimed: ClaimedDelivery[] = [];
  let previous: { row: DeliveryRow; of: JoinedRow } | undefined;
  for (const row of leased) {
    const p = previous?.row;
    let of = previous?.of;
    if (!p || p.subscription_id !== row.subscription_id || p.app_id !== row.app_id || p.store_id !== row.store_id) {
      const key = `${row.subscription_id}/${row.app_id}/${row.store_id}`;
      of = joined.get(key);
      if (of === undefined) {
        [of] = await q<JoinedRow>(JOINED, [row.subscription_id, row.app_id, row.store_id]);
        joined.set(key, of!);
      }
      previous = { row, of: of! };
    }
    // (not toClaimed({ ...row, ...of }): V8 made the spread a dictionary, a sixth of the claim's time)
    claimed.push(toClaimed(row, of!));
  }
  return claimed;
}

/** The order a claim's deliveries are sent in: oldest due first, then by id. */
export function inClaimOrder(a: ClaimedDelivery, b: ClaimedDelivery): number {
  return a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Gives a claim back at once (nothing was sent), so the next claim takes it as it should. */
export async function releaseClaim(sql: Sql, id: bigint, owner: string): Promise<void> {
  await sql.query(
    `UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL, lease_host = NULL WHERE id = ? AND lease_owner = ?`,
    [id, owner],
  );
}

/** The traceId of the request that wrote the event, on every log line about its delivery (issue 15). */
export function traceOf(d: Pick<ClaimedDelivery, 'traceId'>): { traceId?: string } {
  return d.traceId === null ? {} : { traceId: d.traceId };
}
