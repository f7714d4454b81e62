import type { Db } from './client';

/**
 * After inserting rows with explicit ids, makes the table's autoincrement continue above the
 * largest id (never moving it backwards). SQLite's AUTOINCREMENT already does this by itself
 * (sqlite_sequence follows explicit ids), so only PostgreSQL's sequence needs moving.
 * `table` is the SQL table name (`products`), its key column `id`.
 */
export async function syncIdSequence(db: Db, table: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`Not a table name: ${table}`);
  if (db.provider !== 'postgresql') return;
  const [seq] = await db.query<{ name: string | null }>(`SELECT pg_get_serial_sequence(?, 'id') AS name`, [table]);
  if (!seq?.name) throw new Error(`Table ${table} has no id sequence`);
  // The sequence name comes from the catalog, already quoted where needed.
  const [state] = await db.query<{ last_value: bigint; is_called: boolean }>(`SELECT last_value, is_called FROM ${seq.name}`);
  const [max] = await db.query<{ max_id: bigint | null }>(`SELECT MAX(id) AS max_id FROM "${table}"`);
  const nextBySequence = state ? (state.is_called ? state.last_value + 1n : state.last_value) : 1n;
  const nextByRows = (max?.max_id ?? 0n) + 1n;
  if (nextByRows > nextBySequence) {
    await db.query(`SELECT setval(?::regclass, ?, false)`, [seq.name, nextByRows]);
  }
}
