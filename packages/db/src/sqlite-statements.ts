import type Database from 'better-sqlite3';

/**
 * What a connection keeps prepared: statement texts up to PREPARED_TEXT_MAX_CHARS long (a longer one,
 * a multi-row INSERT of hundreds of rows, is prepared for each run: its parse is spread over its
 * rows), up to PREPARED_TEXT_BUDGET_CHARS of text in all, then the cache starts over. A prepared
 * statement held about 35-40 bytes of memory per character of its text (better-sqlite3, measured
 * 2026-11-26), so the budget is about 20 MB a connection.
 */
export const PREPARED_TEXT_MAX_CHARS = 8 * 1024;
export const PREPARED_TEXT_BUDGET_CHARS = 512 * 1024;

/**
 * What Prisma's better-sqlite3 adapter does with a statement: `prepare(sql).bind(args)`, then
 * `run()`, or `reader`, `columns()` and `raw().all()`.
 */
interface AdapterStatement {
  readonly reader: boolean;
  bind(args: unknown[]): AdapterStatement;
  run(): Database.RunResult;
  columns(): Database.ColumnDefinition[];
  raw(toggle?: boolean): AdapterStatement;
  all(): unknown[];
}

/**
 * Keeps the statements of Prisma's better-sqlite3 adapter prepared (issue 17). The adapter prepares
 * every statement anew (`client.prepare(sql)` on every query), which was about a ninth of the API's
 * CPU in a bulk set on SQLite (bench/recheck, 2026-11-26). Each `prepare` now returns a view of one
 * statement per text, kept on the connection: the view holds its own parameters and raw mode, and
 * passes them on every call, since better-sqlite3 binds a statement for good with `bind()` and its
 * raw mode is the statement's. better-sqlite3 runs a statement to its end inside each call, so no
 * two views ever use one statement at once. SQLite prepares a kept statement again by itself when
 * the schema changed (a migration); in the first run after such a change `columns()` can still
 * name the old columns, which matters only to `SELECT *` texts, and Prisma names every column.
 */
export function keepStatementsPrepared(db: Database.Database): void {
  const prepare = db.prepare.bind(db);
  const kept = new Map<string, Database.Statement>();
  let keptChars = 0;
  const statementOf = (sql: string): Database.Statement => {
    let statement = kept.get(sql);
    if (statement === undefined) {
      statement = prepare(sql);
      if (sql.length > PREPARED_TEXT_MAX_CHARS) return statement;
      if (keptChars + sql.length > PREPARED_TEXT_BUDGET_CHARS) {
        kept.clear();
        keptChars = 0;
      }
      kept.set(sql, statement);
      keptChars += sql.length;
    }
    return statement;
  };
  (db as unknown as { prepare: (sql: string) => AdapterStatement }).prepare = (sql: string) => viewOf(statementOf(sql));
}

function viewOf(statement: Database.Statement): AdapterStatement {
  let args: unknown[] = [];
  let raw = false;
  const view: AdapterStatement = {
    get reader() {
      return statement.reader;
    },
    bind(values) {
      args = values;
      return view;
    },
    run: () => statement.run(args),
    columns: () => statement.columns(),
    raw(toggle = true) {
      raw = toggle;
      return view;
    },
    all: () => (statement.reader ? statement.raw(raw).all(args) : statement.all(args)),
  };
  return view;
}
