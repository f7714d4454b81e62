import type { BulkTarget } from './bulk';
import type { TransactionClient } from './client';

/**
 * Reserves `count` consecutive-or-not ids of `table` inside a write transaction, for inserting rows
 * with explicit ids in bulk (a product and its parts rendered once, then written with multi-row
 * inserts, no read-back). Returns them in ascending order.
 *
 * PostgreSQL: `nextval` of the table's sequence, `count` times in one statement; sequences are
 * atomic, so concurrent transactions never get the same id. They come back as one text (on the
 * transaction's own connection where it is found: no ORM work per id).
 * SQLite: AUTOINCREMENT keeps the largest id ever used in `sqlite_sequence`. The reservation moves
 * that row past the new ids in two statements; the first is a write, so the transaction holds
 * SQLite's one write lock before it reads, and no other writer can interleave (later inserts
 * without an id continue above the reservation).
 */
export async function allocateIds(tx: TransactionClient, db: BulkTarget, table: string, count: number): Promise<bigint[]> {
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`Not a table name: ${table}`);
  if (count <= 0) return [];
  if (db.provider === 'postgresql') {
    // The sequence is looked up once (an uncorrelated subquery runs once, as an InitPlan), not per id.
    const sequence = `(SELECT pg_get_serial_sequence('"${table}"', 'id')::regclass)`;
    const sql = `SELECT string_agg(nextval(${sequence})::text, ',') AS ids FROM generate_series(1, $1::int)`;
    const connection = await db.transactionConnection(tx);
    const [row] = connection
      ? await connection.rows<{ ids: string }>(sql, [count])
      : await tx.$queryRawUnsafe<{ ids: string }[]>(sql, count);
    return row!.ids
      .split(',')
      .map(BigInt)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }
  await tx.$executeRawUnsafe(
    `INSERT INTO sqlite_sequence (name, seq) SELECT '${table}', COALESCE((SELECT MAX(id) FROM "${table}"), 0)
     WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = '${table}')`,
  );
  const [row] = await tx.$queryRawUnsafe<{ seq: bigint | number }[]>(
    `UPDATE sqlite_sequence SET seq = MAX(seq, COALESCE((SELECT MAX(id) FROM "${table}"), 0)) + ? WHERE name = '${table}' RETURNING seq`,
    count,
  );
  const last = BigInt(row!.seq);
  return Array.from({ length: count }, (_, i) => last - BigInt(count - 1 - i));
}
