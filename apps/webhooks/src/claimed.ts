import type { Sql } from './sql';

/**
 * The due time (service clock) of the first pending delivery nobody holds, or undefined: one index
 * read, so an idle sender's poll costs one statement rather than a claim. (ORDER BY ... LIMIT 1
 * rather than MIN(): see DUE_OF_SUB in claim.ts.)
 */
export async function firstFreeDue(sql: Sql, realNow: Date, leaseMs: number): Promise<Date | undefined> {
  const [row] = await sql.own<{ at: Date | string | null }>(
    `SELECT next_attempt_at AS at FROM webhook_deliveries
     WHERE status = 'pending' AND (lease_until IS NULL OR lease_until < ? OR lease_until > ?) ORDER BY next_attempt_at LIMIT 1`,
    [realNow, new Date(realNow.getTime() + 2 * leaseMs)],
  );
  return row?.at ? new Date(row.at) : undefined;
}

/**
 * With nothing due now: when the next pending delivery falls due (service clock), so an idle sender
 * sleeps until then rather than until its next poll. Undefined when nothing is pending.
 */
export async function nextDueAt(sql: Sql, now: Date): Promise<Date | undefined> {
  const [row] = await sql.own<{ at: Date | string | null }>(
    `SELECT next_attempt_at AS at FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at > ? ORDER BY next_attempt_at LIMIT 1`,
    [now],
  );
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

/** The delivery's own columns of a ClaimedRow, from `d` (no alias: the table itself, as in RETURNING). */
export function deliveryColumns(d?: string): string {
  const c = d ? `${d}.` : '';
  return `${c}id, ${c}subscription_id, ${c}app_id, ${c}store_id, ${c}webhook_id, ${c}topic, ${c}api_version, ${c}body,
    ${c}triggered_at, ${c}next_attempt_at, ${c}attempts, ${c}lease_host, ${c}trace_id`;
}

/** The subscription's, app's and store's columns of a ClaimedRow, joined as s, a, st. */
/** The ClaimedRow fields JOINED_COLUMNS gives. */
export type JoinedColumn = 'address' | 'subscription_status' | 'app_secret' | 'handle' | 'iana_timezone' | 'merchant_id';

export const JOINED_COLUMNS = 's.address, s.status AS subscription_status, a.app_secret, st.handle, st.iana_timezone, st.merchant_id';

/** The columns of a ClaimedRow, the delivery's from `d` (the subscription, app and store joined as s, a, st). */
export function claimedColumns(d: string): string {
  return `${deliveryColumns(d)},\n    ${JOINED_COLUMNS}`;
}

export function toClaimed(r: ClaimedRow): ClaimedDelivery {
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
    address: r.address,
    leaseHost: r.lease_host,
    subscriptionStatus: r.subscription_status,
    appSecret: r.app_secret,
    handle: r.handle,
    ianaTimezone: r.iana_timezone,
    merchantId: r.merchant_id,
    traceId: r.trace_id,
  };
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
