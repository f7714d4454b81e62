import type { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient as SqlitePrismaClient } from './generated/sqlite/client';
import { PrismaClient as PgPrismaClient } from './generated/postgresql/client';
import { createPgPool, pgQuery, pgTransactionConnections, type PgTransactionConnection } from './postgresql';
import { prepareSqliteFile, providerOf, sqliteFilePath, type Provider } from './provider';
import { betterSqlite3Query, libsqlQuery, type SqliteDriver } from './sqlite';
import { sqliteAdapterFactory, type SqliteAdapterConnection } from './sqlite-adapter';

/**
 * The Prisma client type for both providers. The two generated clients are not type-compatible
 * (each names its own provider) but come from one model set, so both are typed as the SQLite one.
 */
export type PrismaClient = SqlitePrismaClient;

/** The client Prisma hands to an interactive `$transaction` callback. */
export type TransactionClient = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

export interface Db {
  prisma: PrismaClient;
  provider: Provider;
  /** The DATABASE_URL it was made from (the webhook wake needs the SQLite file or a connection of its own). */
  url: string;
  /**
   * Direct driver query for hot read paths, bypassing Prisma. `?` placeholders (turned into
   * `$1, $2, ...` on PostgreSQL). Returns plain objects keyed by column name, the same on both
   * providers:
   * - every integer column (ids, foreign keys, Int fields, COUNT(*)) is a `bigint`;
   * - DateTime columns are JS `Date`s; Boolean columns are `boolean`s; text is `string`.
   * On SQLite the conversion follows the column's declared type, so computed expressions (e.g.
   * `MAX(created_at)`) come back as stored: ISO text for times, 0/1 for booleans.
   * Parameters: `Date` (compared like Prisma stores it), `bigint`, number, string, boolean, null.
   */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<T[]>;
  /**
   * The connection pool's use (PostgreSQL: connections open, idle, and requests waiting for one), for
   * /metrics; undefined on SQLite, which has no pool.
   */
  poolStats(): { total: number; idle: number; waiting: number } | undefined;
  /**
   * SQLite with better-sqlite3: the connection Prisma's transactions run on, once Prisma has
   * connected, for bulk statements inside them (bulk.ts). Undefined otherwise.
   */
  adapterConnection(): SqliteAdapterConnection | undefined;
  /**
   * PostgreSQL: the pooled connection the Prisma transaction `tx` runs on, for bulk statements
   * inside it (bulk.ts; found once per transaction, see pgTransactionConnections). Undefined on
   * SQLite, or when it cannot be found.
   */
  transactionConnection(tx: TransactionClient): Promise<PgTransactionConnection | undefined>;
  close(): Promise<void>;
}

/** How Db.query runs one statement. */
export interface QueryOptions {
  /**
   * PostgreSQL: as a named prepared statement of its pooled connection (parsed once per connection;
   * pgQuery says when a statement should not be). SQLite prepares every statement once anyway.
   */
  prepare?: boolean;
}

export interface CreateDbOptions {
  /** SQLite only; default 'better-sqlite3' (about twice libsql's throughput in bench/listing). */
  sqliteDriver?: SqliteDriver;
}

export const DEFAULT_SQLITE_DRIVER: SqliteDriver = 'better-sqlite3';

/**
 * Every interactive transaction's bounds unless its caller sets its own: up to 10 s to get a
 * connection and 30 s to finish. Prisma's own 2 s and 5 s are shorter than a row lock can be held
 * by a bulk write beside it on a loaded machine; past these, Prisma rolls the transaction back and
 * the API answers 503 with Retry-After (nothing of it written), never a 500.
 */
export const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 30_000 } as const;

/**
 * A Prisma client plus a direct query function for the URL's provider (decisions §12.1). Does not
 * migrate: call `migrate(url)` first. Connections open lazily.
 */
export function createDb(url: string, options: CreateDbOptions = {}): Db {
  const provider = providerOf(url);
  return provider === 'sqlite' ? createSqliteDb(url, options.sqliteDriver ?? DEFAULT_SQLITE_DRIVER) : createPgDb(url);
}

function createSqliteDb(url: string, driver: SqliteDriver): Db {
  if (driver !== 'libsql' && driver !== 'better-sqlite3') throw new Error(`Unknown SQLite driver: ${String(driver)}`);
  const file = sqliteFilePath(url);
  prepareSqliteFile(file);
  let connection: SqliteAdapterConnection | undefined;
  const prisma = new SqlitePrismaClient({
    adapter: sqliteAdapterFactory(file, driver, (c) => (connection = c)),
    transactionOptions: TRANSACTION_OPTIONS,
  });
  let direct: ReturnType<typeof libsqlQuery> | undefined;
  const directQuery = () => (direct ??= driver === 'libsql' ? libsqlQuery(file) : betterSqlite3Query(file));
  return {
    prisma,
    provider: 'sqlite',
    url,
    query: <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => directQuery().query<T>(sql, params),
    poolStats: () => undefined,
    adapterConnection: () => connection,
    transactionConnection: async () => undefined,
    async close() {
      await prisma.$disconnect();
      await direct?.close();
      direct = undefined;
    },
  };
}

function createPgDb(url: string): Db {
  // Prisma's pg adapter (and pg with it) is loaded on first use: about 100 ms of CPU that every
  // start on SQLite paid for nothing. (The generated client stays a static import: the tests run
  // these sources, where a relative require cannot load the generated TypeScript.)
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, above
  const { PrismaPg: Adapter } = require('@prisma/adapter-pg') as { PrismaPg: typeof PrismaPg };
  // One pool for Prisma and for direct queries.
  const pool = createPgPool(url);
  const pgClient = new PgPrismaClient({ adapter: new Adapter(pool), transactionOptions: TRANSACTION_OPTIONS });
  const query = pgQuery(pool);
  const transactionConnection = pgTransactionConnections(pool);
  return {
    prisma: pgClient as unknown as PrismaClient,
    provider: 'postgresql',
    url,
    query: <T = Record<string, unknown>>(sql: string, params: unknown[] = [], options: QueryOptions = {}) =>
      query<T>(sql, params, options.prepare ?? false),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    adapterConnection: () => undefined,
    transactionConnection,
    async close() {
      await pgClient.$disconnect();
      await pool.end();
    },
  };
}
