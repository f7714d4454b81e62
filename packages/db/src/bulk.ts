import type { Db } from './client';
import type { TransactionClient } from './client';
import { PREPARED_TEXT_MAX_CHARS } from './sqlite-statements';

/** Where the bulk statements of a transaction go: the provider, and on SQLite the adapter's connection. */
export type BulkTarget = Pick<Db, 'provider' | 'adapterConnection' | 'transactionConnection'>;

/**
 * SQLite with better-sqlite3, inside a Prisma transaction: the connection that transaction runs on,
 * to run the statements on directly (the adapter does per-parameter work for every raw statement,
 * most of an import's time in it before 2026-11-27). Undefined otherwise: the statements then go
 * through `tx`. A connection with no transaction open is not used (the write would commit alone).
 */
function directConnection(db: BulkTarget) {
  const connection = db.provider === 'sqlite' ? db.adapterConnection() : undefined;
  return connection?.inTransaction ? connection : undefined;
}

/** Runs one statement of a bulk write in the transaction; `prepare` where the connection keeps texts. */
type RunStatement = (sql: string, params: readonly unknown[], prepare?: boolean) => Promise<number>;

/**
 * Where a bulk write's statements run: the transaction's own connection where one is found
 * (better-sqlite3's adapter connection, or the pooled PostgreSQL connection the transaction
 * checked out), else through `tx`, the ORM's raw statements.
 */
async function statementRunner(tx: TransactionClient, db: BulkTarget): Promise<RunStatement> {
  const sqlite = directConnection(db);
  if (sqlite) return async (sql, params) => sqlite.run(sql, params);
  const pg = db.provider === 'postgresql' ? await db.transactionConnection(tx) : undefined;
  if (pg) return (sql, params, prepare) => pg.run(sql, params, { prepare });
  return (sql, params) => tx.$executeRawUnsafe(sql, ...params);
}

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
  db: BulkTarget,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): Promise<void> {
  for (const name of [table, ...columns]) if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Not an SQL name: ${name}`);
  if (rows.length === 0) return;
  const head = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES `;
  if (db.provider === 'postgresql') return insertPgRows(tx, db, head, columns.length, rows);
  const tuple = `(${columns.map(() => '?').join(',')})`;
  // On better-sqlite3's connection, texts short enough to stay prepared there: two per table at most.
  const textBound = directConnection(db) ? Math.floor((PREPARED_TEXT_MAX_CHARS - head.length) / (tuple.length + 1)) : Infinity;
  const perStatement = Math.max(1, Math.min(Math.floor(MAX_PARAMS / columns.length), textBound));
  const run = await statementRunner(tx, db);
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    await run(head + Array.from(chunk, () => tuple).join(','), chunk.flat());
  }
}

/**
 * Rows per INSERT on PostgreSQL (fewer where the parameters would pass MAX_PARAMS): a fixed count,
 * so the full chunks of every big write share one text per table and column layout, which is kept
 * prepared. A prepared statement of 200 product rows holds about 1 MB of the server's memory per
 * connection (its parse tree and generic plan); 200 and 500 rows a statement imported equally fast.
 */
const PG_ROWS_PER_STATEMENT = 200;

const sameValue = (a: unknown, b: unknown): boolean => a === b || (a instanceof Date && b instanceof Date && a.getTime() === b.getTime());

/**
 * insertRows on PostgreSQL: on the transaction's own connection where it is found (no ORM work per
 * parameter), else through `tx`. A column holding one value in every row (the store, the instant
 * of the write, a constant) is one parameter, `$k` in every row: the server parses it once and the
 * driver sends it once (an import's rows share 4 of their 11, 3 of 8 and 4 of 9 values).
 */
async function insertPgRows(
  tx: TransactionClient,
  db: BulkTarget,
  head: string,
  width: number,
  rows: readonly (readonly unknown[])[],
): Promise<void> {
  const first = rows[0]!;
  const shared = Array.from({ length: width }, (_, c) => rows.length > 1 && rows.every((row) => sameValue(row[c], first[c])));
  const sharedValues = first.filter((_, c) => shared[c]);
  const perRow = width - sharedValues.length;
  const perStatement = Math.max(1, Math.min(PG_ROWS_PER_STATEMENT, Math.floor((MAX_PARAMS - sharedValues.length) / Math.max(1, perRow))));
  const run = await statementRunner(tx, db);
  // Generic plans: the server plans a statement without its values. A custom plan (the default for
  // a statement run once) folds every value into the plan first, copying megabytes of documents:
  // the products INSERT of 1,000 rows took 25% less of the server's CPU planned generic
  // (2026-11-27). An INSERT ... VALUES has one plan either way. The full chunks of a big write
  // share one text per table, prepared on the connection: parsed and planned once there, which
  // took the server's CPU for a 1,000-product import from about 235 to 95 ms (2026-11-27).
  // A small write (a bulk set of 25) keeps the default: its two extra round trips would cost more.
  const generic = rows.length >= PG_ROWS_PER_STATEMENT;
  if (generic) await run('SET LOCAL plan_cache_mode = force_generic_plan', []);
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const params: unknown[] = [...sharedValues];
    const sharedRefs: string[] = [];
    for (let c = 0, k = 0; c < width; c++) if (shared[c]) sharedRefs[c] = `$${++k}`;
    const tuples = chunk.map((row) => {
      let tuple = '(';
      for (let c = 0; c < width; c++) {
        if (c > 0) tuple += ',';
        if (shared[c]) tuple += sharedRefs[c]!;
        else {
          params.push(row[c]);
          tuple += `$${params.length}`;
        }
      }
      return tuple + ')';
    });
    const sql = head + tuples.join(',');
    await run(sql, params, chunk.length === PG_ROWS_PER_STATEMENT);
  }
  // The rest of the transaction plans as usual (updateRows' joins want their values).
  if (generic) await run('SET LOCAL plan_cache_mode TO DEFAULT', []);
}

/** What updateRows matches and writes; every name a plain SQL name. */
export interface RowUpdate {
  /** Columns that pick the row, all equal: its key first, then any fence (e.g. "still the value that was read"). */
  match: readonly string[];
  /** Columns written. */
  set: readonly string[];
  /**
   * PostgreSQL type of every column above (`bigint`, `text`, `boolean`, `integer`, ...): the rows
   * arrive as a VALUES list, which has no column types of its own, and an untyped parameter would
   * be text (`bigint = text` has no operator). SQLite ignores them.
   */
  pgTypes: Readonly<Record<string, string>>;
}

/**
 * Multi-row UPDATE of `table` inside a transaction: each row of `rows` (values in `match` then
 * `set` order) changes the one stored row whose `match` columns equal its own, in one statement per
 * MAX_PARAMS parameters (`WITH v(...) AS (VALUES ...) UPDATE ... FROM v`, the same text on SQLite
 * 3.33+ and PostgreSQL), instead of a statement per row (issue 17). A row whose match finds nothing
 * (changed or deleted meanwhile) writes nothing. Returns how many stored rows changed. Rows are
 * written in the order given: give them in key order, so concurrent writers lock in one order.
 * On PostgreSQL the rest of the transaction plans without hash or merge joins (see below): keep
 * joins of large sets out of what follows it.
 */
export async function updateRows(
  tx: TransactionClient,
  db: BulkTarget,
  table: string,
  spec: RowUpdate,
  rows: readonly (readonly unknown[])[],
): Promise<number> {
  const columns = [...spec.match, ...spec.set];
  for (const name of [table, ...columns]) if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Not an SQL name: ${name}`);
  if (spec.match.length === 0 || spec.set.length === 0) throw new Error('updateRows needs columns to match and to set');
  const casts = columns.map((c) => {
    const type = spec.pgTypes[c];
    if (type === undefined || !/^[a-z][a-z0-9_ ()]*$/.test(type)) throw new Error(`No PostgreSQL type for ${c}`);
    return `::${type}`;
  });
  if (rows.length === 0) return 0;
  const names = columns.map((c) => `"${c}"`).join(', ');
  const { provider } = db;
  // better-sqlite3's connection in the transaction: one prepared single-row UPDATE per row, on the
  // key. SQLite's own time is about the same as for the one statement over json_each below; what
  // goes is building that statement's JSON text and the garbage it made (about a tenth of the
  // re-check's time in a profile; with the re-check's pacer change, 63,967 -> 87,618 values/s side
  // by side, bench/recheck 2026-11-27).
  const direct = directConnection(db);
  if (direct) {
    const set = spec.set.map((c) => `"${c}" = ?`).join(', ');
    const where = spec.match.map((c) => `"${c}" = ?`).join(' AND ');
    const order = [...spec.set.map((_, i) => spec.match.length + i), ...spec.match.map((_, i) => i)];
    return direct.runEach(`UPDATE "${table}" SET ${set} WHERE ${where}`, rows, order);
  }
  const json = provider === 'sqlite' ? sqliteJsonRows(rows) : undefined;
  if (json !== undefined) {
    const picks = columns.map((_, i) => `json_extract(value, '$[${i}]')`).join(', ');
    return (await statementRunner(tx, db))(`WITH v (${names}) AS (SELECT ${picks} FROM json_each(?))${tailOf(table, spec)}`, [json]);
  }
  const tail = tailOf(table, spec);
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  // PostgreSQL: each row by its key (the first match column), never by hashing the table. With
  // statistics that know the table, the planner costed a sequential scan of all of it below a
  // thousand key lookups, and every batch of a re-check read every metafield of every store
  // (bulk.test.ts). For the rest of the transaction (a reset would be one more round trip per
  // batch): what follows in both callers joins nothing.
  const pg = provider === 'postgresql';
  const run = await statementRunner(tx, db);
  if (pg) await run('SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off', []);
  let changed = 0;
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    let n = 0;
    const tuple = () => `(${columns.map((_, i) => (pg ? `$${++n}${casts[i]}` : '?')).join(',')})`;
    changed += await run(`WITH v (${names}) AS (VALUES ${chunk.map(tuple).join(',')})${tail}`, chunk.flat());
  }
  return changed;
}

function tailOf(table: string, spec: RowUpdate): string {
  return (
    ` UPDATE "${table}" SET ${spec.set.map((c) => `"${c}" = v."${c}"`).join(', ')} FROM v` +
    ` WHERE ${spec.match.map((c) => `"${table}"."${c}" = v."${c}"`).join(' AND ')}`
  );
}

/**
 * A string JSON carries to SQLite unchanged: no NUL, no lone surrogate (SQLite would not decode
 * either back to what the driver stores). A loop, not a regular expression: V8's engine overflows
 * its stack on a repeated group over some million characters.
 */
function jsonSafe(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return false;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return false;
  }
  return true;
}

/**
 * SQLite through the ORM (the libsql driver; better-sqlite3's connection takes `runEach` in
 * updateRows): the rows as one JSON array of arrays, read back with json_each, so the statement has one
 * parameter and one text whatever the number of rows (the adapter handled thousands of parameters
 * and a new statement text per batch: most of a re-check's time). Booleans as 1/0, as Prisma stores
 * them. Undefined when a value is not plainly JSON (a Date, bytes, a string jsonSafe refuses):
 * then the VALUES list is used.
 */
function sqliteJsonRows(rows: readonly (readonly unknown[])[]): string | undefined {
  const out: string[] = [];
  for (const row of rows) {
    const cells: string[] = [];
    for (const v of row) {
      if (v === null) cells.push('null');
      else if (typeof v === 'bigint') cells.push(v.toString());
      else if (typeof v === 'boolean') cells.push(v ? '1' : '0');
      else if (typeof v === 'number' && Number.isFinite(v)) cells.push(String(v));
      else if (typeof v === 'string' && jsonSafe(v)) cells.push(JSON.stringify(v));
      else return undefined;
    }
    out.push(`[${cells.join(',')}]`);
  }
  return `[${out.join(',')}]`;
}
