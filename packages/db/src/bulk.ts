import type { TransactionClient } from './outbox';
import type { Provider } from './provider';

/**
 * Parameters per statement: under SQLite's 32,766 and PostgreSQL's 65,535, and small enough that
 * preparing a statement stays cheap.
 */
const MAX_PARAMS = 8_000;

/**
 * Multi-row INSERTs of `rows` (values in `columns` order) into `table` inside a transaction: the
 * bulk write path of imports, without the ORM's per-row work (issue 17). Values as Prisma's raw
 * queries take them: bigint, number, string, boolean, Date, Buffer/Uint8Array, null; dates are
 * written in the format Prisma itself writes, so Prisma reads them back alike.
 */
export async function insertRows(
  tx: TransactionClient,
  provider: Provider,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): Promise<void> {
  for (const name of [table, ...columns]) if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Not an SQL name: ${name}`);
  if (rows.length === 0) return;
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  const head = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES `;
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    let n = 0;
    const tuple = () => `(${columns.map(() => (provider === 'postgresql' ? `$${++n}` : '?')).join(',')})`;
    const values = chunk.map(tuple).join(',');
    await tx.$executeRawUnsafe(head + values, ...chunk.flat());
  }
}
