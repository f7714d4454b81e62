import { PrismaPg } from '@prisma/adapter-pg';
import { currentSchemaFiles, NO_FILTER, readMigrationList, withEngine, type EngineLog } from './engine';
import { prepareSqliteFile, providerOf, sqliteFilePath } from './provider';
import { DEFAULT_SQLITE_DRIVER } from './client';
import { sqliteAdapterFactory, type SqliteDriver } from './sqlite';

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
 * `_prisma_migrations`. Idempotent: a second run applies nothing. For SQLite, creates the file's
 * folder when missing and switches the file to WAL (persistent, so every later connection has it).
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
  return withEngine(
    factory,
    currentSchemaFiles(provider),
    async (engine) => {
      const result = await engine.applyMigrations({ migrationsList, filters: NO_FILTER });
      return { applied: result.appliedMigrationNames };
    },
    options.log,
  );
}
