import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { createDb, migrate, type Db, type SqliteDriver } from './index';
import { migrationsDir } from './paths';
import { databaseUrl, onServer } from './testing';
import type { Provider } from './provider';

// Shared by the package's test files (compiled by the build with them, loaded by nobody else).

/** The migration folders of a provider, in the order they apply. */
export function migrationNames(provider: Provider): string[] {
  return readdirSync(migrationsDir(provider), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/**
 * A database of its own on the TEST_DATABASE_URL server, so a suite starts from an empty schema and
 * others running at once are not disturbed. Nothing is touched until `create`.
 */
export function throwawayPgDatabase(serverUrl: string | undefined, prefix: string) {
  const name = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  /** One statement on the server's own database (made, dropped, backends ended). */
  const admin = async (sql: string, params: unknown[] = []): Promise<void> => void (await onServer(serverUrl!, sql, params));
  return {
    name,
    url: () => databaseUrl(serverUrl!, name),
    admin,
    create: () => admin(`CREATE DATABASE ${name}`),
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** No model stamps updated_at by itself (README, Timestamps): rows made in tests give theirs. */
export const NOW = new Date('2026-11-24T10:00:00Z');

export const TIMEOUT = 60_000;

/** What a suite of `eachDatabase` gets: the database's provider, its URL and its client. */
export interface SuiteDatabase {
  provider: Provider;
  driver: SqliteDriver | undefined;
  url(): string;
  /** The client (open during the suite's tests). */
  readonly db: Db;
  /** Unique to this suite: a part of handles and keys, so suites sharing a database never clash. */
  stamp: string;
  /** A store with this handle. */
  newStore(handle: string): ReturnType<Db['prisma']['store']['create']>;
}

/**
 * Runs `suite` on every provider and driver, each on a database of its own migrated from nothing:
 * SQLite with libsql and with better-sqlite3, and PostgreSQL when TEST_DATABASE_URL is set.
 */
export function eachDatabase(suite: (database: SuiteDatabase) => void): void {
  describe.each(['libsql', 'better-sqlite3'] as const)('SQLite, driver %s', (driver) => {
    const dir = mkdtempSync(join(tmpdir(), 'platform-db-'));
    const url = `file:${join(dir, `${driver}.db`)}`;
    beforeAll(() => migrate(url), TIMEOUT);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    suite(suiteDatabase('sqlite', () => url, driver));
  });
  const server = process.env['TEST_DATABASE_URL'];
  describe.runIf(server?.startsWith('postgres'))('PostgreSQL (TEST_DATABASE_URL)', () => {
    const database = throwawayPgDatabase(server, 'platform_db_test');
    beforeAll(async () => {
      await database.create();
      await migrate(database.url());
    }, TIMEOUT);
    afterAll(() => database.drop(), TIMEOUT);
    suite(suiteDatabase('postgresql', () => database.url(), undefined));
  });
}

function suiteDatabase(provider: Provider, url: () => string, driver: SqliteDriver | undefined): SuiteDatabase {
  let db: Db | undefined;
  const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  beforeAll(() => {
    db = createDb(url(), driver ? { sqliteDriver: driver } : {});
  });
  afterAll(async () => {
    await db?.close();
  });
  const client = (): Db => {
    if (!db) throw new Error('the suite database opens in beforeAll');
    return db;
  };
  return {
    provider,
    driver,
    url,
    stamp,
    get db() {
      return client();
    },
    newStore(handle: string) {
      return client().prisma.store.create({
        data: {
          updatedAt: NOW,
          handle,
          name: `Store ${handle}`,
          email: 'owner@example.com',
          customerEmail: 'help@example.com',
          merchantId: 7n,
        },
      });
    },
  };
}
