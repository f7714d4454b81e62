import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationNames, throwawayPgDatabase } from './databases.test-support';
import { migrate, MigrationLockTimeoutError, pendingMigrations } from './index';
import { migrationsDir } from './paths';

// decisions §12.8, issue 44: "migrations first, each with a lock timeout". On PostgreSQL every
// migration is one transaction under `SET LOCAL lock_timeout` (migration-script.ts): behind a
// transaction that holds a table it changes, it gives up after the timeout instead of queueing
// every statement of the running release behind it, leaves nothing of itself, and is tried again.
const TIMEOUT = 120_000;
const pgUrl = process.env['TEST_DATABASE_URL'];

describe.runIf(pgUrl?.startsWith('postgres'))('PostgreSQL migrations: one transaction each, under a lock timeout', () => {
  const database = throwawayPgDatabase(pgUrl, 'platform_migrate_timeout');
  const url = () => database.url();
  const dir = mkdtempSync(join(tmpdir(), 'platform-migrations-'));
  /** A copy of the package's migrations and `extra` ones after them. */
  const folderWith = (name: string, extra: Record<string, string>): string => {
    const folder = join(dir, name);
    cpSync(migrationsDir('postgresql'), folder, { recursive: true });
    for (const [migration, sql] of Object.entries(extra)) {
      mkdirSync(join(folder, migration));
      writeFileSync(join(folder, migration, 'migration.sql'), sql);
    }
    return folder;
  };
  const query = async (sql: string): Promise<pg.QueryResultRow[]> => {
    const client = new pg.Client({ connectionString: url() });
    await client.connect();
    try {
      return (await client.query(sql)).rows;
    } finally {
      await client.end();
    }
  };
  // A statement before the one that waits, and a DO body with semicolons of its own (Prisma's
  // adapter used to split a script at each one and commit the pieces one by one).
  const PROBE = [
    'CREATE TABLE "probe_first" ("id" INTEGER);',
    'DO $$ BEGIN CREATE TABLE "probe_do" ("id" INTEGER); INSERT INTO "probe_do" VALUES (1); END $$;',
    'ALTER TABLE "stores" ADD COLUMN "probe" TEXT;',
  ].join('\n');
  const tableExists = async (name: string) => (await query(`SELECT to_regclass('${name}')::text AS t`))[0]!['t'] !== null;

  beforeAll(async () => {
    await database.create();
    expect(await migrate(url())).toEqual({ applied: migrationNames('postgresql') });
  }, TIMEOUT);
  afterAll(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }, TIMEOUT);

  it(
    'gives up after the lock timeout on each try, applies nothing of the migration, and applies it once the table is free',
    async () => {
      const folder = folderWith('locked', { '29990101000000_probe': PROBE });
      // The running release's long transaction: it has read `stores`, which ALTER TABLE must wait for.
      const holder = new pg.Client({ connectionString: url() });
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query('SELECT count(*) FROM stores');
      try {
        const retries: string[] = [];
        const error = await migrate(url(), {
          migrationsDir: folder,
          lockTimeoutMs: 300,
          lockAttempts: 2,
          retryDelayMs: () => 50,
          log: (line) => retries.push(line),
        }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(MigrationLockTimeoutError);
        const message = (error as Error).message;
        expect(message).not.toContain('\n');
        expect(message).toContain('migration 29990101000000_probe waited more than 300 ms for a lock');
        expect(message).toContain('on each of 2 tries; nothing of it was applied');
        expect(retries).toEqual([
          'migration 29990101000000_probe waited more than 300 ms for a lock (PLATFORM_MIGRATE_LOCK_TIMEOUT_MS); nothing of it was applied; trying again in 50 ms (try 2 of 2)',
        ]);
        // Nothing of it, though its first statements came before the one that waited.
        expect(await tableExists('probe_first')).toBe(false);
        expect(await tableExists('probe_do')).toBe(false);
        expect(await pendingMigrations(url(), { migrationsDir: folder })).toEqual(['29990101000000_probe']);
        // The transaction holding the table was never disturbed.
        expect((await holder.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);

        // Run again: the first try times out, the table is freed during the pause, the second applies it.
        const applied = await migrate(url(), {
          migrationsDir: folder,
          lockTimeoutMs: 300,
          lockAttempts: 5,
          retryDelayMs: () => 50,
          log: () => void holder.query('COMMIT'),
        });
        expect(applied).toEqual({ applied: ['29990101000000_probe'] });
      } finally {
        await holder.end();
      }
      expect(await query('SELECT id FROM probe_do')).toEqual([{ id: 1 }]);
      expect(await tableExists('probe_first')).toBe(true);
      expect(
        await query(`SELECT column_name FROM information_schema.columns WHERE table_name = 'stores' AND column_name = 'probe'`),
      ).toEqual([{ column_name: 'probe' }]);
      // The tries that timed out are recorded as rolled back, the last one as applied.
      const rows = await query(
        `SELECT rolled_back_at IS NOT NULL AS rolled_back, finished_at IS NOT NULL AS finished FROM _prisma_migrations
          WHERE migration_name = '29990101000000_probe' ORDER BY started_at`,
      );
      expect(rows).toEqual([
        { rolled_back: true, finished: false },
        { rolled_back: true, finished: false },
        { rolled_back: true, finished: false },
        { rolled_back: false, finished: true },
      ]);
    },
    TIMEOUT,
  );

  it(
    'a migration that fails for another reason leaves nothing of itself and is not tried again',
    async () => {
      const folder = folderWith('broken', {
        '29990101000000_probe': PROBE,
        '29990102000000_broken': 'CREATE TABLE "broken_first" ("id" INTEGER);\nSELECT 1 / 0;',
      });
      const retries: string[] = [];
      const error = await migrate(url(), { migrationsDir: folder, retryDelayMs: () => 50, log: (line) => retries.push(line) }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(MigrationLockTimeoutError);
      expect((error as Error).message).toContain('division by zero');
      expect(retries).toEqual([]);
      expect(await tableExists('broken_first')).toBe(false);
    },
    TIMEOUT,
  );
});
