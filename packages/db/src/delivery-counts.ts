import type { Provider } from './provider';

/** A statement runner with Db.query's conventions (`?` placeholders, bigint integers). */
export type CountsQuery = <T = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<T[]>;

/**
 * Deliveries by status, read from the counts the database keeps (migration
 * 20261202120000_webhook_delivery_counts, issue 48), not counted over webhook_deliveries: a few rows
 * on SQLite (one per status, kept by triggers), the unfolded tail of a ledger on PostgreSQL (folded
 * by the senders every few seconds: foldDeliveryCounts). The same statement on both. Statuses with
 * no delivery are absent or 0.
 */
export async function readDeliveryCounts(query: CountsQuery): Promise<Map<string, number>> {
  const rows = await query<{ status: string; n: bigint | number | string }>(
    'SELECT status, CAST(SUM(n) AS BIGINT) AS n FROM webhook_delivery_counts GROUP BY status',
  );
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}

/**
 * Any number no other part of the platform takes as an advisory lock: one fold at a time across the
 * senders (a second one skips its turn rather than wait).
 */
export const COUNTS_FOLD_LOCK_KEY = 7_311_048;

/**
 * PostgreSQL: the ledger of counts folded into one row per status, in one statement. What the
 * triggers append meanwhile is not in the statement's snapshot, so not deleted, and stays to be
 * summed: the totals never change, whatever runs beside it. Two folds at once would be safe too (a
 * row one deleted is skipped by the other), but the second would wait for the first's row locks:
 * it skips instead. Nothing to do on SQLite, whose counts are one row per status already.
 */
export const FOLD_DELIVERY_COUNTS = `WITH lock AS (SELECT pg_try_advisory_xact_lock(${COUNTS_FOLD_LOCK_KEY}) AS ok),
  gone AS (DELETE FROM webhook_delivery_counts WHERE (SELECT ok FROM lock) RETURNING status, n)
  INSERT INTO webhook_delivery_counts (status, n) SELECT status, SUM(n) FROM gone GROUP BY status HAVING SUM(n) <> 0`;

export async function foldDeliveryCounts(provider: Provider, query: CountsQuery): Promise<void> {
  if (provider === 'postgresql') await query(FOLD_DELIVERY_COUNTS);
}
