import { existsSync } from 'node:fs';
import { PrismaPg } from '@prisma/adapter-pg';
import { currentSchemaFiles, NO_FILTER, readMigrationList, withEngine, type EngineLog } from './engine';
import { prepareSqliteFile, providerOf, sqliteFilePath } from './provider';
import { createDb, DEFAULT_SQLITE_DRIVER } from './client';
import type { SqliteDriver } from './sqlite';
import { sqliteAdapterFactory } from './sqlite-adapter';
import { withMigrationLock } from './migrate-lock';
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
}

/**
 * Applies the pending migrations of the URL's provider (`prisma migrate deploy`), recording them in
 * `_prisma_migrations`. Idempotent: a second run applies nothing. Under the migration lock
 * (migrate-lock.ts), so processes migrating at once apply each migration once: the first applies,
 * the others wait, then find nothing to do. For SQLite, creates the file's folder when missing and
 * switches the file to WAL (persistent, so every later connection has it).
 */
export async function migrate(url: string, options: MigrateOptions = {}): Promise<{ applied: string[] }> {
  const provider = providerOf(url);
  let factory;
  if (provider === 'sqlite') {
    const file = sqliteFilePath(url);
    prepareSqliteFile(file);
    // the pragma-setting factory: WAL is switched on here, once, for the file's lifetime
    factory = sqliteAdapterFactory(file, options.sqliteDriver ?? DEFAULT_SQLITE_DRIVER);
  } else {
    factory = new PrismaPg({ connectionString: url });
  }
  const migrationsList = readMigrationList(provider);
  if (migrationsList.migrationDirectories.length === 0) {
    throw new Error(`No migrations found in ${migrationsList.baseDir}`);
  }
  return withMigrationLock(url, () =>
    withEngine(
      factory,
      currentSchemaFiles(provider),
      async (engine) => {
        const result = await engine.applyMigrations({ migrationsList, filters: NO_FILTER });
        return { applied: result.appliedMigrationNames };
      },
      options.log,
    ),
  );
}

/** The migrations of this version that the database has not applied (all of them on an empty one). */
export async function pendingMigrations(url: string, options: { sqliteDriver?: SqliteDriver } = {}): Promise<string[]> {
  const provider = providerOf(url);
  const known = readMigrationList(provider).migrationDirectories.map((d) => d.path);
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
