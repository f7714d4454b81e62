import Database from 'better-sqlite3';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { platformLibSql, SQLITE_BUSY_TIMEOUT_MS, sqlitePragmas, sqliteUrl, toSqliteParam, type SqliteDriver } from './sqlite';
import { keepStatementsPrepared } from './sqlite-statements';

// The Prisma driver adapters on SQLite (sqliteAdapterFactory): better-sqlite3's made to take the
// write lock first, to order statements behind transactions and to expose its connection for the
// bulk writes; libsql's (platformLibSql, sqlite.ts) with the pragmas on every connection.

/**
 * Every Prisma transaction on SQLite takes the write lock before its first statement. They are the
 * API's writes, and most read before they write: begun DEFERRED, such a transaction fails at once
 * with SQLITE_BUSY when another process (a sender) committed after its first read, since a stale
 * read snapshot cannot be upgraded to a writer (busy_timeout cannot help it). Holding the lock from
 * the start, it waits for the other process's short transaction instead. Inside one process nothing
 * changes: the adapter runs one transaction at a time on its one connection.
 */
const WRITE_LOCK_FIRST = 'UPDATE _prisma_migrations SET id = id WHERE 0';

/** SQLITE_BUSY (or one of its extended codes) from the driver adapter. */
function isBusy(error: unknown): boolean {
  const code = (error as { cause?: { originalCode?: unknown } } | null)?.cause?.originalCode;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * The connection of Prisma's better-sqlite3 adapter, for statements run beside Prisma inside its
 * transactions (the bulk writes of `bulk.ts`, issue 17): the adapter runs every transaction of its
 * client on this one connection, one at a time, so a statement run here while a Prisma
 * `$transaction` callback runs is part of that transaction, and its rollback takes it back. This
 * skips the ORM's per-parameter work on raw statements (about a third of an import's CPU on
 * SQLite, bench/import 2026-11-27).
 */
export interface SqliteAdapterConnection {
  /** Whether a transaction is open on the connection (a Prisma transaction of this client runs). */
  readonly inTransaction: boolean;
  /**
   * Runs one statement (kept prepared like the adapter's own, sqlite-statements.ts) with
   * parameters as Db.query takes them (Date, boolean, bigint, number, string, bytes, null), written
   * as Prisma writes them. Returns the number of rows changed.
   */
  run(sql: string, params: readonly unknown[]): number;
  /**
   * Runs one statement once per row, prepared once: row `r` binds `r[order[0]], r[order[1]], ...`
   * (values as `run` takes them). Returns the number of rows changed in all.
   */
  runEach(sql: string, rows: readonly (readonly unknown[])[], order: readonly number[]): number;
}

function adapterConnection(client: Database.Database): SqliteAdapterConnection {
  return {
    get inTransaction() {
      return client.inTransaction;
    },
    run(sql, params) {
      try {
        // `prepare` is the kept-statement view of keepStatementsPrepared: bind, then run.
        return client.prepare(sql).bind(params.map(toSqliteParam)).run().changes;
      } catch (error) {
        throw asRawQueryError(error);
      }
    },
    runEach(sql, rows, order) {
      try {
        const statement = client.prepare(sql);
        let changed = 0;
        for (const row of rows) {
          const args: unknown[] = new Array(order.length);
          for (let i = 0; i < order.length; i++) args[i] = toSqliteParam(row[order[i]!]);
          changed += statement.bind(args).run().changes;
        }
        return changed;
      } catch (error) {
        throw asRawQueryError(error);
      }
    },
  };
}

/** The driver adapter's kinds of error for SQLite's codes, as it names them. */
function adapterKind(code: string): string | undefined {
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return 'UniqueConstraintViolation';
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return 'ForeignKeyConstraintViolation';
  if (code.startsWith('SQLITE_BUSY')) return 'SocketTimeout';
  return undefined;
}

/**
 * A driver error of a statement run beside Prisma, in the shape Prisma gives a raw statement's
 * failure through the adapter (P2010 with the adapter's kind), so its callers read both alike
 * (a unique or foreign-key refusal, a busy database).
 */
function asRawQueryError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return error;
  const kind = adapterKind(code);
  return Object.assign(new Error(`Raw query failed: ${(error as Error).message}`, { cause: error }), {
    code: 'P2010',
    meta: { driverAdapterError: { cause: { kind: kind ?? 'sqlite', originalCode: code } } },
  });
}

/**
 * better-sqlite3 keeps one connection per adapter: the pragmas run once, when it opens.
 * `onConnect` receives the connection Prisma's queries and transactions run on (not the shadow
 * database's).
 */
function betterSqlite3Factory(
  file: string,
  onConnect?: (connection: SqliteAdapterConnection) => void,
): SqlMigrationAwareDriverAdapterFactory {
  const inner = new PrismaBetterSqlite3({ url: `file:${file}`, timeout: SQLITE_BUSY_TIMEOUT_MS });
  const prepared = async (adapter: SqlDriverAdapter, main: boolean): Promise<SqlDriverAdapter> => {
    // The adapter's connection (its `client`): statements kept prepared (sqlite-statements.ts).
    const client = (adapter as unknown as { client?: unknown }).client;
    if (client instanceof Database) {
      keepStatementsPrepared(client);
      if (main) onConnect?.(adapterConnection(client));
    }
    const { rows } = await adapter.queryRaw({ sql: 'PRAGMA auto_vacuum', args: [], argTypes: [] });
    await adapter.executeScript(sqlitePragmas(rows[0]?.[0]).join(';\n') + ';');
    // The adapter begins with a plain BEGIN; a write that matches nothing takes the lock. Without
    // waiting inside SQLite: its busy handler sleeps on the event loop's thread, so a lock held by
    // another connection of this process (an in-process sender in tests) could never be released
    // meanwhile. The lock is tried at once and, while busy, tried again every millisecond from the
    // event loop (BEGIN anew each time: a refused attempt may leave a stale snapshot), at most
    // busy_timeout in all.
    const start = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (isolationLevel) => {
      const tx = await start(isolationLevel);
      const raw = (sql: string) => tx.executeRaw({ sql, args: [], argTypes: [] });
      const deadline = Date.now() + SQLITE_BUSY_TIMEOUT_MS;
      try {
        await raw('PRAGMA busy_timeout = 0');
        for (;;) {
          try {
            await raw(WRITE_LOCK_FIRST);
            break;
          } catch (error) {
            if (!isBusy(error) || Date.now() >= deadline) throw error;
            await raw('ROLLBACK');
            await new Promise((resolve) => setTimeout(resolve, 1));
            await raw('BEGIN');
          }
        }
        await raw(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
      } catch (error) {
        await raw('ROLLBACK').catch(() => undefined);
        await raw(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`).catch(() => undefined);
        await tx.rollback();
        throw error;
      }
      return tx;
    };
    gateStatementsBehindTransactions(adapter);
    return adapter;
  };
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    connect: async () => prepared(await inner.connect(), true),
    connectToShadowDb: async () => prepared(await inner.connectToShadowDb(), false),
  };
}

/**
 * The adapter's statements outside transactions wait while one of its transactions is open (or
 * beginning). Its one connection runs both, and the adapter orders only transactions among
 * themselves: a request's single statement (a create, an update) that ran while another request's
 * transaction was open became part of that transaction, undone with it if it rolled back while its
 * own request had answered 200; and one that ran while a transaction was beginning met the
 * connection's busy_timeout at 0 (the lock is tried from the event loop, above), so a lock held by
 * another process answered SQLITE_BUSY at once: a 503 under load (bench/load, 2026-11-27).
 * Statements inside a transaction (its own object's) never wait. Code inside a transaction must use
 * the transaction's client: the client itself would now wait for the transaction to end.
 */
function gateStatementsBehindTransactions(adapter: SqlDriverAdapter): void {
  let tail: Promise<void> = Promise.resolve();
  /** Resolves when every earlier holder released; returns the release. */
  const acquire = async (): Promise<() => void> => {
    let release!: () => void;
    const previous = tail;
    tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    return release;
  };
  const start = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolationLevel) => {
    const release = await acquire();
    let tx: Awaited<ReturnType<typeof start>>;
    try {
      tx = await start(isolationLevel);
    } catch (error) {
      release();
      throw error;
    }
    const commit = tx.commit.bind(tx);
    const rollback = tx.rollback.bind(tx);
    tx.commit = async () => {
      try {
        await commit();
      } finally {
        release();
      }
    };
    tx.rollback = async () => {
      try {
        await rollback();
      } finally {
        release();
      }
    };
    return tx;
  };
  const gated =
    <A, R>(run: (arg: A) => Promise<R>) =>
    async (arg: A): Promise<R> => {
      const release = await acquire();
      try {
        return await run(arg);
      } finally {
        release();
      }
    };
  adapter.queryRaw = gated(adapter.queryRaw.bind(adapter));
  adapter.executeRaw = gated(adapter.executeRaw.bind(adapter));
}

/** `onConnect`: better-sqlite3 only (libsql's connections are not reachable beside Prisma). */
export function sqliteAdapterFactory(
  file: string,
  driver: SqliteDriver,
  onConnect?: (connection: SqliteAdapterConnection) => void,
): SqlMigrationAwareDriverAdapterFactory {
  return driver === 'libsql' ? platformLibSql(sqliteUrl(file)) : betterSqlite3Factory(file, onConnect);
}
