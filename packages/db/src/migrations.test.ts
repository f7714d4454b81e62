import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationNames, throwawayPgDatabase } from './databases.test-support';
import { createDb, migrate } from './index';
import { pendingMigrationSql, PROVIDERS } from './migrations';

const TIMEOUT = 60_000;

describe('migrations', () => {
  it.each(PROVIDERS)(
    '%s migrations are up to date with prisma/models.prisma (else run migration:new)',
    async (provider) => {
      expect(migrationNames(provider).length).toBeGreaterThan(0);
      expect(await pendingMigrationSql(provider)).toBe('');
    },
    TIMEOUT,
  );

  it('both providers have the same migration names', () => {
    expect(migrationNames('postgresql')).toEqual(migrationNames('sqlite'));
  });
});

describe('SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-db-'));
  const url = `file:${join(dir, 'nested', 'folder', 'platform.db')}`;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'migrate creates the folder, applies every migration, then nothing',
    async () => {
      expect(existsSync(join(dir, 'nested'))).toBe(false);
      expect(await migrate(url)).toEqual({ applied: migrationNames('sqlite') });
      expect(existsSync(join(dir, 'nested', 'folder', 'platform.db'))).toBe(true);
      expect(await migrate(url)).toEqual({ applied: [] });
      const db = createDb(url);
      try {
        const rows = await db.query<{ migration_name: string; finished_at: Date | null }>(
          'SELECT migration_name, finished_at FROM _prisma_migrations ORDER BY migration_name',
        );
        expect(rows.map((r) => r.migration_name)).toEqual(migrationNames('sqlite'));
        expect(rows.every((r) => r.finished_at !== null)).toBe(true);
      } finally {
        await db.close();
      }
    },
    TIMEOUT,
  );
});

const pgUrl = process.env['TEST_DATABASE_URL'];

describe.runIf(pgUrl?.startsWith('postgres'))('PostgreSQL (TEST_DATABASE_URL)', () => {
  const database = throwawayPgDatabase(pgUrl, 'platform_db_migrations');
  beforeAll(() => database.create(), TIMEOUT);
  afterAll(() => database.drop(), TIMEOUT);

  it(
    'migrate applies every migration, then nothing',
    async () => {
      expect(await migrate(database.url())).toEqual({ applied: migrationNames('postgresql') });
      expect(await migrate(database.url())).toEqual({ applied: [] });
    },
    TIMEOUT,
  );
});
