import { receivingHost, type DueQueue } from '@platform/domain/webhooks';
import { NEXT_DUE } from './claimed';
import type { Query, Sql } from './sql';

// The walk of a claim (claim.ts): what is due, per subscription, and what is in flight.

/** Where the walk over subscriptions goes on at the next claim (a sender keeps one). */
export interface WalkCursor {
  after: bigint;
}

export const WALK_LIMIT = 256;

/** A lease held by a live claim: after realNow and not implausibly far ahead. */
const LIVE = 'lease_until > ? AND lease_until <= ?';
export const FREE = '(d.lease_until IS NULL OR d.lease_until < ? OR d.lease_until > ?)';
/**
 * A subscription's due deliveries that nobody holds, read in the claim's order (the order of the
 * claim index: next_attempt_at, id within a subscription), even where the order does not matter
 * (the count): the claim's transaction forbids sorts on PostgreSQL (Sql.exclusive), so the planner
 * cannot take the (status, next_attempt_at) index instead and filter a subscription's rows out of
 * everyone's, which it did on statistics taken while nothing was pending. The oldest is read as the
 * first of that order (`LIMIT 1` on SQLite, MIN over the capped rows counted on PostgreSQL: one
 * scan for both), never as MIN() over a subscription's rows (nor is the walk's next subscription
 * id): on such statistics PostgreSQL computed MIN by aggregating every pending row on every claim.
 */
const IN_CLAIM_ORDER = 'ORDER BY d.next_attempt_at, d.id';
const DUE_OF_SUB = `FROM webhook_deliveries d WHERE d.status = 'pending' AND d.subscription_id = subs.id AND d.next_attempt_at <= ? AND ${FREE}`;

/**
 * The live claims with a host, counted per host, app and subscription: the attempts in flight of
 * every sender (every write that ends an attempt clears its lease). Parameters: realNow,
 * implausible. SQLite: the leased rows themselves, on the index of lease_until that holds only the
 * claims with a host (migration 20261203100000_live_claims_index_sqlite: a held delivery's lease and
 * record write no entry there), the live ones few.
 * PostgreSQL: the ledger webhook_lease_counts, to which triggers append what every statement that
 * sets, moves or clears a lease changes (migration 20261127234500_lease_counts): there no index
 * names a lease column, so a claim rewrites a row without touching any of the table's indexes
 * (docs/webhooks-sender.md).
 */
const LIVE_ROWS = `SELECT lease_host AS host, app_id, subscription_id, COUNT(*) AS n FROM webhook_deliveries
  WHERE ${LIVE} AND lease_host IS NOT NULL GROUP BY lease_host, app_id, subscription_id`;
export const LIVE_COUNTS = `SELECT host, app_id, subscription_id, SUM(n) AS n FROM webhook_lease_counts
  WHERE ${LIVE} GROUP BY host, app_id, subscription_id HAVING SUM(n) > 0`;
/**
 * PostgreSQL: each claim folds the ledger of webhook_lease_counts (the triggers only append to it):
 * the rows of each group (claim, subscription, host, lease_until) that has more than one row or sums
 * to zero are replaced by one row with their sum, when it is not zero; a group whose claims expired
 * an hour ago on the database's clock goes (one sender's clock running ahead drops nothing: a
 * recorded, failed or taken-over lease sums to zero long before). A group of one live row is left
 * as it is, so a claim rewrites what was appended since the last one, not the whole ledger. Rows
 * the triggers append meanwhile are not seen, so not touched: the sums stay what they are. Only
 * claims delete rows, one at a time (the advisory lock), and the triggers wait for no row, so the
 * ledger puts no lock between a claim and a record. Exported for its test.
 */
export const FOLD_COUNTS = `gone AS (DELETE FROM webhook_lease_counts WHERE id IN (
    SELECT id FROM (
      SELECT id, lease_until, COUNT(*) OVER w AS k, SUM(n) OVER w AS s FROM webhook_lease_counts
      WINDOW w AS (PARTITION BY owner, subscription_id, host, lease_until)
    ) g WHERE k > 1 OR s = 0 OR lease_until < now() - interval '1 hour'
  ) RETURNING owner, subscription_id, host, app_id, lease_until, n),
  folded AS (INSERT INTO webhook_lease_counts (owner, subscription_id, host, app_id, lease_until, n)
    SELECT owner, subscription_id, host, MIN(app_id), lease_until, SUM(n) FROM gone WHERE lease_until >= now() - interval '1 hour'
    GROUP BY owner, subscription_id, host, lease_until HAVING SUM(n) <> 0 RETURNING 1)`;

export interface LiveRow {
  host: string;
  app_id: bigint;
  subscription_id: bigint;
  n: bigint;
}

interface QueueRow {
  subscription_id: bigint;
  app_id: bigint | null;
  address: string | null;
  subscription_status: string | null;
  oldest_due: Date | string | null;
  due: bigint;
}

/**
 * The claim's reads, in its transaction: the subscriptions with due deliveries nobody holds (each
 * one's due count, capped at `countCap`, and oldest due time), the live claims counted per host,
 * app and subscription, and (PostgreSQL) when the next pending delivery falls due after `now`.
 */
export async function walkQueues(
  sql: Sql,
  q: Query,
  req: { now: Date; realNow: Date },
  implausible: Date,
  countCap: number,
  cursor: WalkCursor,
): Promise<{ live: LiveRow[]; queues: DueQueue[]; nextDue?: Date | null }> {
  const due = [req.now, req.realNow, implausible];
  const liveParams = [req.realNow, implausible];
  // SQLite does not stop a LIMIT inside a correlated subquery (it counted a whole backlog, about
  // 1 ms for 5,000): there each due count is a statement of its own (microseconds, in process).
  // PostgreSQL: the first walk also returns the live claims and when the next pending delivery falls
  // due after now (what nextDueAt reads; round trips fewer a claim).
  const inOne = sql.db.provider === 'postgresql';
  const walk = (after: bigint, upTo: bigint | null, limit: number, withLive: boolean) =>
    q<QueueRow & { kind: 'queue' | 'live' | 'next' }>(
      `WITH RECURSIVE subs(id, n) AS (
         SELECT (SELECT subscription_id FROM webhook_deliveries WHERE status = 'pending' AND subscription_id > ? ORDER BY subscription_id LIMIT 1), 1
         UNION ALL
         SELECT (SELECT subscription_id FROM webhook_deliveries WHERE status = 'pending' AND subscription_id > subs.id ORDER BY subscription_id LIMIT 1), subs.n + 1
         FROM subs WHERE subs.id IS NOT NULL AND subs.n < ?
       )${withLive ? `, live AS (${LIVE_COUNTS}), ${FOLD_COUNTS}` : ''}
       SELECT 'queue' AS kind, subs.id AS subscription_id, s.app_id, s.address, s.status AS subscription_status,
              ${inOne ? 'c.oldest_due, c.due' : `(SELECT d.next_attempt_at ${DUE_OF_SUB} ${IN_CLAIM_ORDER} LIMIT 1) AS oldest_due, 0 AS due`}
       FROM subs
       LEFT JOIN webhook_subscriptions s ON s.id = subs.id
       ${inOne ? `CROSS JOIN LATERAL (SELECT MIN(x.next_attempt_at) AS oldest_due, COUNT(*) AS due FROM (SELECT d.next_attempt_at ${DUE_OF_SUB} ${IN_CLAIM_ORDER} LIMIT ?) x) c` : ''}
       WHERE subs.id IS NOT NULL${upTo === null ? '' : ' AND subs.id <= ?'}
       ${withLive ? `UNION ALL SELECT 'live', subscription_id, app_id, host, NULL, NULL, n FROM live UNION ALL SELECT 'next', NULL, NULL, NULL, NULL, (${NEXT_DUE}), NULL` : ''}`,
      [
        after,
        limit,
        ...(withLive ? liveParams : []),
        ...due,
        ...(inOne ? [countCap] : []),
        ...(upTo === null ? [] : [upTo]),
        ...(withLive ? [req.now] : []),
      ],
    );
  const countDue = async (subscriptionId: bigint): Promise<number> => {
    const [row] = await q<{ n: bigint }>(
      `SELECT COUNT(*) AS n FROM (SELECT 1 FROM webhook_deliveries d
         WHERE d.status = 'pending' AND d.subscription_id = ? AND d.next_attempt_at <= ? AND ${FREE} LIMIT ?)`,
      [subscriptionId, ...due, countCap],
    );
    return Number(row?.n ?? 0);
  };
  const live: LiveRow[] = inOne ? [] : await q<LiveRow>(LIVE_ROWS, liveParams);
  let rows: QueueRow[] = [];
  let nextDue: Date | null | undefined;
  for (const row of await walk(cursor.after, null, WALK_LIMIT, inOne)) {
    if (row.kind === 'live') live.push({ host: row.address!, app_id: row.app_id!, subscription_id: row.subscription_id, n: row.due });
    else if (row.kind === 'next') nextDue = row.oldest_due === null ? null : new Date(row.oldest_due);
    else rows.push(row);
  }
  if (rows.length >= WALK_LIMIT) cursor.after = rows[rows.length - 1]!.subscription_id;
  else {
    // The end of the ids: wrap around to what the walk started after.
    if (cursor.after > 0n) rows = rows.concat(await walk(0n, cursor.after, WALK_LIMIT - rows.length, false));
    cursor.after = 0n;
  }
  const queues: DueQueue[] = [];
  for (const row of rows) {
    if (row.oldest_due === null) continue;
    const count = inOne ? Number(row.due) : await countDue(BigInt(row.subscription_id));
    if (count === 0) continue;
    const sendable = row.subscription_status === 'enabled' && row.address !== null;
    const subscriptionId = BigInt(row.subscription_id);
    queues.push({
      subscriptionId,
      appId: row.app_id ?? 0n,
      host: sendable ? receivingHost(row.address!) : null,
      due: count,
      oldestDue: new Date(row.oldest_due),
      inFlight: 0, // the caller's, from `live`
    });
  }
  return { live, queues, ...(nextDue === undefined ? {} : { nextDue }) };
}
