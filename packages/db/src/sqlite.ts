import Database from 'better-sqlite3';
import type { Client, InArgs, InStatement, InValue, Transaction, TransactionMode } from '@libsql/client' with {
  'resolution-mode': 'import',
};
import type { PrismaLibSql } from '@prisma/adapter-libsql';

// libsql (the `libsql` driver, not the default) is loaded on first use: @libsql/client and Prisma's
// adapter for it cost about 150 ms of CPU to load, which every start of the API and of the sender
// paid on the default better-sqlite3 and on PostgreSQL alike.
// @libsql/client ships CommonJS code but only ESM-flavoured typings, which TypeScript refuses to
// `import` from a CommonJS module: load the CommonJS build with require, typed from the ESM one.
const createClient: typeof import('@libsql/client', { with: { 'resolution-mode': 'import' } }).createClient = (config) =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  (require('@libsql/client') as typeof import('@libsql/client', { with: { 'resolution-mode': 'import' } })).createClient(config);

export type SqliteDriver = 'libsql' | 'better-sqlite3';

export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * Run on every connection (see sqlitePragmas). busy_timeout and foreign_keys are per connection;
 * journal_mode=WAL is stored in the file (readers never block the writer, so API and sender
 * processes can share it); synchronous=NORMAL is the usual WAL pairing: no corruption risk, a power
 * cut may lose the last commits, never the database. temp_store=MEMORY keeps a statement's
 * temporary data in memory: the statement journal of a multi-row write inside a transaction (what
 * rolls back that one statement) went to a temporary file once past 64 KiB, opened, written,
 * truncated and unlinked by the sender's record groups and claims: about one write(2) a delivery
 * and 160 temporary files in a drain of 30,000 (`strace -c`; bench/webhooks 2026-12-03), about
 * 1.7 us of CPU a delivery, and 30% of the delivered rows' update in isolation. What a statement
 * keeps is the original of the pages it changes (and what it sorts), until it ends: most statements
 * of the platform write a batch or a page of rows; one that writes many (a disabled subscription's
 * whole backlog marked failed, a hand-run update of a large table) holds that much in memory.
 */
export const SQLITE_PRAGMAS = [
  `PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`,
  'PRAGMA journal_mode = WAL',
  'PRAGMA synchronous = NORMAL',
  'PRAGMA foreign_keys = ON',
  'PRAGMA temp_store = MEMORY',
];

/**
 * auto_vacuum=INCREMENTAL is stored in the file too, and takes only on a file without tables, and
 * only before journal_mode=WAL writes the file's first page (hence before it): every database the
 * migrations create has it, so the pages a retention pass frees go back to the file system
 * (`PRAGMA incremental_vacuum`, apps/webhooks retention.ts). On a file made without it the pragma
 * does nothing; one `VACUUM` with the processes stopped converts it (docs/production.md).
 */
const AUTO_VACUUM_INCREMENTAL = 'PRAGMA auto_vacuum = INCREMENTAL';

/**
 * The pragmas for a new connection to a file whose `PRAGMA auto_vacuum` reads `autoVacuum`.
 * Setting auto_vacuum takes the write lock even when it changes nothing: a new connection waited
 * for whatever another process was writing (up to busy_timeout, then failed; the likely cause of a
 * sender that once failed to start with "database is locked" beside a process writing deliveries,
 * 2026-12-03). So it is set only on a file that is not INCREMENTAL yet (a new one); reading it
 * takes no lock.
 */
export function sqlitePragmas(autoVacuum: unknown): string[] {
  if (Number(autoVacuum) === 2) return SQLITE_PRAGMAS;
  const [busy, ...rest] = SQLITE_PRAGMAS;
  return [busy!, AUTO_VACUUM_INCREMENTAL, ...rest];
}

/** A `file:` URL for libsql, which percent-decodes the path (so `#`, `?` and `%` survive). */
export function sqliteUrl(file: string): string {
  return 'file:' + file.split('/').map(encodeURIComponent).join('/');
}

/**
 * A transaction on the client's own connection. libsql's local client instead hands its connection
 * to the transaction and opens a new one for the next statement, and nothing ever closes the
 * handed-off connection: with Prisma (nested writes, some upserts and every $transaction run in a
 * transaction) that leaks one open SQLite connection per transaction until the garbage collector
 * happens to finalise it (hundreds of open files after a few hundred), and every new connection
 * starts without our pragmas.
 * Keeping one connection is safe because PrismaLibSql holds its adapter-wide mutex from the start
 * of a transaction to its commit or rollback, so nothing else runs on the client meanwhile (the
 * better-sqlite3 adapter works the same way).
 */
function sameConnectionTransaction(client: Client, mode: TransactionMode | undefined): Promise<Transaction> {
  // Prisma's transactions write (see WRITE_LOCK_FIRST): they take the write lock at BEGIN.
  const begin = mode === 'read' ? 'BEGIN' : 'BEGIN IMMEDIATE';
  let open = true;
  const end = async (sql: 'COMMIT' | 'ROLLBACK'): Promise<void> => {
    if (!open) return;
    open = false;
    await client.execute(sql);
  };
  const live = (): void => {
    if (!open) throw new Error('The transaction is closed');
  };
  return client.execute(begin).then(() => ({
    execute: async (stmt: InStatement) => {
      live();
      return client.execute(stmt);
    },
    batch: async (stmts: InStatement[]) => {
      const results = [];
      for (const stmt of stmts) {
        live();
        results.push(await client.execute(stmt));
      }
      return results;
    },
    executeMultiple: async () => {
      // the client's executeMultiple rolls back any open transaction when it finishes
      throw new Error('executeMultiple is not supported inside a transaction');
    },
    commit: () => end('COMMIT'),
    rollback: () => end('ROLLBACK').catch(() => undefined),
    close: () => {
      void end('ROLLBACK').catch(() => undefined);
    },
    get closed() {
      return !open;
    },
  }));
}

/**
 * The pragmas run before the first statement of the connection (they are per connection; see
 * sqlitePragmas), and transactions stay on that connection (sameConnectionTransaction).
 */
function withPragmas(client: Client): Client {
  let ready: Promise<void> | undefined;
  const prepare = (): Promise<void> => {
    ready ??= (async () => {
      const { rows } = await client.execute('PRAGMA auto_vacuum');
      await client.executeMultiple(sqlitePragmas(rows[0]?.[0]).join(';\n') + ';');
    })().catch((error: unknown) => {
      ready = undefined; // e.g. SQLITE_BUSY: try again on the next statement
      throw error;
    });
    return ready;
  };
  const beforeUse = new Set<PropertyKey>(['execute', 'batch', 'executeMultiple', 'migrate']);
  return new Proxy(client, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (beforeUse.has(prop)) {
        return async (...args: unknown[]) => {
          await prepare();
          return method.apply(target, args);
        };
      }
      if (prop === 'transaction') {
        return async (mode?: TransactionMode) => {
          await prepare();
          return sameConnectionTransaction(target, mode);
        };
      }
      return method.bind(target);
    },
  });
}

/** Prisma's libsql adapter factory whose connections all get sqlitePragmas (loaded on first use, above). */
export function platformLibSql(url: string): PrismaLibSql {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, above
  const { PrismaLibSql: Base } = require('@prisma/adapter-libsql') as typeof import('@prisma/adapter-libsql');
  class PlatformLibSql extends Base {
    override createClient(config: Parameters<PrismaLibSql['createClient']>[0]): Client {
      return withPragmas(super.createClient(config));
    }
  }
  return new PlatformLibSql({ url });
}

// ---------------------------------------------------------------------------------------------
// Direct queries (Db.query) on SQLite: a connection of their own, beside Prisma's.

/**
 * Prisma's SQLite adapters store DateTime as ISO 8601 text with an explicit offset
 * (`2026-11-22T04:05:01.000+00:00`, their default `timestampFormat: 'iso8601'`, both drivers
 * alike). Columns filled by a DEFAULT CURRENT_TIMESTAMP hold `2026-11-22 04:05:01` (UTC, no
 * offset), and a value written as unix milliseconds would be a number: all three read as a Date.
 */
export function parseSqliteDateTime(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'bigint') return new Date(Number(value));
  if (typeof value !== 'string') return value;
  const hasOffset = /(?:[zZ]|[+-]\d\d:?\d\d)$/.test(value);
  return new Date(hasOffset ? value : value.replace(' ', 'T') + 'Z');
}

/**
 * The text of the last instants written: the rows of one statement share a few (a webhook record
 * group's attempts: converting each was 2% of the SQLite sender's busy time, bench/webhooks
 * 2026-11-26). Cleared when full.
 */
const recentTexts = new Map<number, string>();

/** The text Prisma itself writes for a Date, so comparisons against stored values hold. */
export function sqliteDateTimeText(date: Date): string {
  const ms = date.getTime();
  let text = recentTexts.get(ms);
  if (text === undefined) {
    text = date.toISOString().replace('Z', '+00:00');
    if (recentTexts.size >= 256) recentTexts.clear();
    recentTexts.set(ms, text);
  }
  return text;
}

/** A parameter as Prisma's SQLite adapters write it (Date as its text, boolean as 1/0, undefined as null). */
export function toSqliteParam(value: unknown): InValue {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return sqliteDateTimeText(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value as InValue;
}

type Converter = (value: unknown) => unknown;

const asIs: Converter = (value) => (value === undefined ? null : value);
const asDate: Converter = (value) => (value === null || value === undefined ? null : parseSqliteDateTime(value));
const asBoolean: Converter = (value) =>
  value === null || value === undefined ? null : typeof value === 'bigint' ? value !== 0n : typeof value === 'number' ? value !== 0 : value;

/** Integers come back as bigint from the drivers (see Db.query); declared types fix the rest. */
function converterFor(declaredType: string | null | undefined): Converter {
  switch ((declaredType ?? '').toUpperCase()) {
    case 'DATETIME':
    case 'TIMESTAMP':
      return asDate;
    case 'BOOLEAN':
      return asBoolean;
    default:
      return asIs;
  }
}

function convertSqliteValue(declaredType: string | null | undefined, value: unknown): unknown {
  return converterFor(declaredType)(value);
}

export interface SqliteQuery {
  query<T>(sql: string, params: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/**
 * Statements that both drivers' one-statement calls would stop after a step: `PRAGMA
 * incremental_vacuum` frees one page a step (each step yields a row without columns, so the
 * statement reads as one that returns nothing, and `run()` steps it once). These run as a script,
 * which steps each statement to its end.
 */
const RUN_TO_THE_END = /^\s*PRAGMA\s+incremental_vacuum\b/i;

export function libsqlQuery(file: string): SqliteQuery {
  // intMode 'bigint': every INTEGER value as a bigint, exact to 64 bits.
  const client = withPragmas(createClient({ url: sqliteUrl(file), intMode: 'bigint' }));
  return {
    async query<T>(sql: string, params: unknown[]): Promise<T[]> {
      if (params.length === 0 && RUN_TO_THE_END.test(sql)) {
        await client.executeMultiple(sql);
        return [];
      }
      const result = await client.execute({ sql, args: params.map(toSqliteParam) as InArgs });
      const { columns, columnTypes } = result;
      return result.rows.map((row) => {
        const out: Record<string, unknown> = {};
        columns.forEach((name, i) => {
          out[name] = convertSqliteValue(columnTypes[i], row[i]);
        });
        return out as T;
      });
    },
    close: async () => client.close(),
  };
}

export function betterSqlite3Query(file: string): SqliteQuery {
  const db = new Database(file, { timeout: SQLITE_BUSY_TIMEOUT_MS });
  for (const pragma of sqlitePragmas(db.pragma('auto_vacuum', { simple: true }))) db.exec(pragma);
  db.defaultSafeIntegers(true);
  // Hot read paths run the same few statements: keep them prepared, with their columns' names and
  // converters worked out once.
  interface Prepared {
    statement: Database.Statement;
    names: string[];
    converters: Converter[];
    /** RUN_TO_THE_END: through `exec`. */
    script: boolean;
  }
  const statements = new Map<string, Prepared>();
  return {
    async query<T>(sql: string, params: unknown[]): Promise<T[]> {
      let prepared = statements.get(sql);
      if (!prepared) {
        const statement = db.prepare(sql);
        const columns = statement.reader ? statement.columns() : [];
        prepared = {
          statement,
          names: columns.map((c) => c.name),
          converters: columns.map((c) => converterFor(c.type)),
          script: params.length === 0 && RUN_TO_THE_END.test(sql),
        };
        if (statements.size >= 500) statements.clear();
        statements.set(sql, prepared);
      }
      const { statement, names, converters } = prepared;
      const args = params.map(toSqliteParam);
      if (!statement.reader) {
        if (prepared.script) db.exec(sql);
        else statement.run(...args);
        return [];
      }
      const rows = statement.raw(true).all(...args) as unknown[][];
      const width = names.length;
      const out = new Array<T>(rows.length);
      for (let r = 0; r < rows.length; r++) {
        const row = rows[r]!;
        const record: Record<string, unknown> = {};
        for (let i = 0; i < width; i++) record[names[i]!] = converters[i]!(row[i]);
        out[r] = record as T;
      }
      return out;
    },
    close: async () => {
      db.close();
    },
  };
}
