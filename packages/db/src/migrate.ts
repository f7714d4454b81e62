import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { loadPg } from './pg-driver';
import { currentSchemaFiles, NO_FILTER, readMigrationList, withEngine, type EngineLog } from './engine';
import { prepareSqliteFile, providerOf, sqliteFilePath } from './provider';
import { createDb, DEFAULT_SQLITE_DRIVER } from './client';
import type { SqliteDriver } from './sqlite';
import { sqliteAdapterFactory } from './sqlite-adapter';
import { withMigrationLock } from './migrate-lock';
import {
  DEFAULT_MIGRATE_LOCK_ATTEMPTS,
  DEFAULT_MIGRATE_LOCK_TIMEOUT_MS,
  transactionalPgFactory,
  type ScriptOutcome,
} from './migration-script';
import { pgConnectionConfig } from './postgresql';
import { probeDatabase } from './startup';

export interface MigrateOptions {
  /** Receives the engine's warnings and errors. */
  log?: EngineLog;
  /**
   * SQLite only: migrate through the driver the process will use afterwards. Two SQLite libraries
   * (libsql's and better-sqlite3's) holding one file in one process break each other's POSIX locks
   * (SQLITE_IOERR_SHORT_READ seen here), so one process sticks to one.
   */
  sqliteDriver?: SqliteDriver;
  /**
   * PostgreSQL: how long a migration waits for a lock (`lock_timeout`, each migration one
   * transaction: migration-script.ts), and how many times a migration that timed out is tried
   * before migrate gives up. SQLite: the connection's busy_timeout applies instead.
   */
  lockTimeoutMs?: number;
  lockAttempts?: number;
  /** The pause before try `n + 1` after try `n` timed out on a lock (default 1 s, 2 s, 4 s, ...). */
  retryDelayMs?: (n: number) => number;
  /** Tests only: a migrations folder other than the package's own. */
  migrationsDir?: string;
}

/** Migrate gave up: a migration timed out on a lock on every try. The message is one line. */
export class MigrationLockTimeoutError extends Error {}

/**
 * Applies the pending migrations of the URL's provider (`prisma migrate deploy`), recording them in
 * `_prisma_migrations`. Idempotent: a second run applies nothing. Under the migration lock
 * (migrate-lock.ts), so processes migrating at once apply each migration once: the first applies,
 * the others wait, then find nothing to do. For SQLite, creates the file's folder when missing and
 * switches the file to WAL (persistent, so every later connection has it). On PostgreSQL each
 * migration is one transaction with a lock timeout (migration-script.ts); one that timed out is
 * recorded as rolled back (nothing of it was applied) and tried again after a pause.
 */
export async function migrate(url: string, options: MigrateOptions = {}): Promise<{ applied: string[] }> {
  const provider = providerOf(url);
  const migrationsList = readMigrationList(provider, options.migrationsDir);
  if (migrationsList.migrationDirectories.length === 0) {
    throw new Error(`No migrations found in ${migrationsList.baseDir}`);
  }
  const apply = (factory: Parameters<typeof withEngine>[0]) =>
    withEngine(
      factory,
      currentSchemaFiles(provider),
      async (engine) => (await engine.applyMigrations({ migrationsList, filters: NO_FILTER })).appliedMigrationNames,
      options.log,
    );
  if (provider === 'sqlite') {
    const file = sqliteFilePath(url);
    prepareSqliteFile(file);
    // the pragma-setting factory: WAL is switched on here, once, for the file's lifetime
    const factory = sqliteAdapterFactory(file, options.sqliteDriver ?? DEFAULT_SQLITE_DRIVER);
    return withMigrationLock(url, async () => ({ applied: await apply(factory) }));
  }
  const lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_MIGRATE_LOCK_TIMEOUT_MS;
  const attempts = options.lockAttempts ?? DEFAULT_MIGRATE_LOCK_ATTEMPTS;
  const pause = options.retryDelayMs ?? ((n: number) => 1000 * 2 ** (n - 1));
  const outcome: ScriptOutcome = { lockTimedOut: false };
  const factory = transactionalPgFactory(url, lockTimeoutMs, outcome);
  return withMigrationLock(url, async () => {
    const finishedAtStart = new Set((await migrationRows(url)).filter((r) => r.finished).map((r) => r.name));
    for (let n = 1; ; n++) {
      const unfinishedBefore = (await migrationRows(url)).filter((r) => !r.finished).map((r) => r.id);
      try {
        await apply(factory);
        // this try's and those earlier tries committed before one timed out, in the order applied
        const rows = await migrationRows(url);
        return {
          applied: rows
            .filter((r) => r.finished && !finishedAtStart.has(r.name))
            .map((r) => r.name)
            .sort(),
        };
      } catch (error) {
        if (!outcome.lockTimedOut) throw error;
        // Its transaction rolled back: record it so (`prisma migrate resolve --rolled-back`), and
        // the next try applies it afresh.
        const names = await markRolledBack(url, unfinishedBefore);
        const what = `migration ${names.join(', ') || '(unknown)'} waited more than ${lockTimeoutMs} ms for a lock (PLATFORM_MIGRATE_LOCK_TIMEOUT_MS)`;
        if (n >= attempts) {
          throw new MigrationLockTimeoutError(
            `${what} on each of ${attempts} tries; nothing of it was applied and it is recorded as rolled back, so migrate can simply ` +
              `run again. A transaction holds a table it changes: find it in pg_stat_activity (a long query, or 'idle in transaction').`,
          );
        }
        const wait = pause(n);
        options.log?.(`${what}; nothing of it was applied; trying again in ${wait} ms (try ${n + 1} of ${attempts})`);
        await sleep(wait);
      }
    }
  });
}

interface MigrationRow {
  id: string;
  name: string;
  finished: boolean;
}

/** The rows of `_prisma_migrations` not rolled back (none before the first migrate). */
async function migrationRows(url: string): Promise<MigrationRow[]> {
  return withPgClient(url, async (client) => {
    const table = await client.query<{ t: string | null }>(`SELECT to_regclass('_prisma_migrations')::text AS t`);
    if (!table.rows[0]?.t) return [];
    const rows = await client.query<{ id: string; migration_name: string; finished: boolean }>(
      'SELECT id, migration_name, finished_at IS NOT NULL AS finished FROM _prisma_migrations WHERE rolled_back_at IS NULL',
    );
    return rows.rows.map((r) => ({ id: r.id, name: r.migration_name, finished: r.finished }));
  });
}

/** Marks rolled back the unfinished rows a failed try left (not those in `before`); their names. */
async function markRolledBack(url: string, before: string[]): Promise<string[]> {
  return withPgClient(url, async (client) => {
    const rows = await client.query<{ migration_name: string }>(
      `UPDATE _prisma_migrations SET rolled_back_at = now()
        WHERE finished_at IS NULL AND rolled_back_at IS NULL AND NOT (id = ANY($1::text[]))
        RETURNING migration_name`,
      [before],
    );
    return rows.rows.map((r) => r.migration_name);
  });
}

async function withPgClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new (loadPg().Client)(pgConnectionConfig(url));
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The migrations of this version that the database has not applied (all of them on an empty one). */
export async function pendingMigrations(
  url: string,
  options: { sqliteDriver?: SqliteDriver; migrationsDir?: string } = {},
): Promise<string[]> {
  const provider = providerOf(url);
  const known = readMigrationList(provider, options.migrationsDir).migrationDirectories.map((d) => d.path);
  const db = createDb(url, options);
  try {
    const table =
      provider === 'postgresql'
        ? await db.query<{ t: string | null }>(`SELECT to_regclass('_prisma_migrations')::text AS t`)
        : await db.query<{ t: string }>(`SELECT name AS t FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'`);
    if (!table[0]?.t) return known;
    const rows = await db.query<{ migration_name: string }>(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const applied = new Set(rows.map((r) => r.migration_name));
    return known.filter((name) => !applied.has(name));
  } finally {
    await db.close();
  }
}

/** decisions §12, issue 15: `auto` migrates at start, `check` only verifies (production, after `migrate`). */
export type MigrateMode = 'auto' | 'check';

/** A schema behind the code under PLATFORM_MIGRATE=check: the message is the one line to print. */
export class SchemaBehindError extends Error {}

/**
 * What a program does with the schema before it starts: under `auto` migrate (under the lock),
 * under `check` refuse to start when a migration is missing. Either way the database is probed
 * first, so an unreachable one is named in one line (DatabaseUnavailableError).
 */
export async function prepareSchema(url: string, mode: MigrateMode, options: MigrateOptions = {}): Promise<{ applied: string[] }> {
  await probeDatabase(url);
  // `auto` on a schema already current (every start but the first of a version) reads the list of
  // applied migrations and stops there: the schema engine costs about half a second of CPU and
  // 40 MB to load and would apply nothing. A failed migration (never finished) counts as pending,
  // so the engine still reports it. SQLite: a file that does not exist yet is created by migrate.
  if (mode === 'auto') {
    const fresh = providerOf(url) === 'sqlite' && !existsSync(sqliteFilePath(url));
    if (fresh || (await pendingMigrations(url, options)).length > 0) return migrate(url, options);
    return { applied: [] };
  }
  const missing = await pendingMigrations(url, options);
  if (missing.length > 0) {
    throw new SchemaBehindError(
      `The database schema is behind this version (PLATFORM_MIGRATE=check): ${missing.length} migration(s) missing: ` +
        `${missing.join(', ')}. Run \`pnpm migrate\` (the image's \`migrate\` command) with this DATABASE_URL, then start again.`,
    );
  }
  return { applied: [] };
}
