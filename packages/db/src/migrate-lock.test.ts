import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationNames, throwawayPgDatabase } from './databases.test-support';
import { createDb, pendingMigrations, prepareSchema, SchemaBehindError } from './index';
import { packageRoot } from './paths';
import type { Provider } from './provider';

// Issue 15, item 1: migrate is a step of its own that any number of processes may run at once.
const TIMEOUT = 120_000;
const cli = join(packageRoot(), 'dist', 'cli', 'migrate.js');

/** The built `migrate` command, as `pnpm migrate` runs it. */
function runMigrate(url: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: url } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function appliedRows(url: string): Promise<string[]> {
  const db = createDb(url);
  try {
    const rows = await db.query<{ migration_name: string }>('SELECT migration_name FROM _prisma_migrations ORDER BY migration_name');
    return rows.map((r) => r.migration_name);
  } finally {
    await db.close();
  }
}

async function expectMigratedOnceByMany(url: string, provider: Provider): Promise<void> {
  const runs = await Promise.all([runMigrate(url), runMigrate(url), runMigrate(url)]);
  for (const run of runs) {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  }
  // One process applied everything; the others waited for the lock and found nothing to do.
  expect(runs.filter((r) => r.stdout.startsWith('Applied')).length).toBe(1);
  expect(runs.filter((r) => r.stdout.startsWith('Database is up to date')).length).toBe(2);
  expect(await appliedRows(url)).toEqual(migrationNames(provider));
  expect(await pendingMigrations(url)).toEqual([]);
}

describe('migrate on SQLite (its write lock on <file>-migrate-lock)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-migrate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'three processes migrating one empty file at once apply each migration once',
    async () => {
      await expectMigratedOnceByMany(`file:${join(dir, 'many', 'platform.db')}`, 'sqlite');
    },
    TIMEOUT,
  );

  it(
    'PLATFORM_MIGRATE=check names every missing migration and the command to run, then passes once migrated',
    async () => {
      const url = `file:${join(dir, 'check', 'platform.db')}`;
      const error = await prepareSchema(url, 'check').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SchemaBehindError);
      const message = (error as Error).message;
      expect(message).not.toContain('\n');
      for (const name of migrationNames('sqlite')) expect(message).toContain(name);
      expect(message).toContain('pnpm migrate');
      expect(await prepareSchema(url, 'auto')).toEqual({ applied: migrationNames('sqlite') });
      expect(await prepareSchema(url, 'check')).toEqual({ applied: [] });
    },
    TIMEOUT,
  );

  it(
    'PLATFORM_MIGRATE=auto on a current schema applies nothing, and still refuses a migration that failed half-way',
    async () => {
      const url = `file:${join(dir, 'auto', 'platform.db')}`;
      expect(await prepareSchema(url, 'auto')).toEqual({ applied: migrationNames('sqlite') });
      expect(await prepareSchema(url, 'auto')).toEqual({ applied: [] });
      // A migration that started and never finished (a process killed mid-way): the short cut of a
      // current schema must not hide it; the engine names it and the start stops.
      const last = migrationNames('sqlite').at(-1)!;
      const db = createDb(url);
      try {
        await db.query(`UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = '${last}' RETURNING id`);
      } finally {
        await db.close();
      }
      const error = await prepareSchema(url, 'auto').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain(last);
    },
    TIMEOUT,
  );

  it(
    'calls in one process take turns instead of blocking each other',
    async () => {
      const url = `file:${join(dir, 'one-process', 'platform.db')}`;
      const [a, b] = await Promise.all([prepareSchema(url, 'auto'), prepareSchema(url, 'auto')]);
      expect([...a.applied, ...b.applied]).toEqual(migrationNames('sqlite'));
    },
    TIMEOUT,
  );
});

const pgUrl = process.env['TEST_DATABASE_URL'];

describe.runIf(pgUrl?.startsWith('postgres'))('migrate on PostgreSQL (advisory lock)', () => {
  const database = throwawayPgDatabase(pgUrl, 'platform_migrate');
  const url = () => database.url();
  afterAll(() => database.drop(), TIMEOUT);

  it(
    'three processes migrating one empty database at once apply each migration once',
    async () => {
      await database.create();
      await expectMigratedOnceByMany(url(), 'postgresql');
    },
    TIMEOUT,
  );

  it(
    'an unreachable server is named in one line, without its password',
    async () => {
      const run = await runMigrate('postgresql://platform:hunter2@127.0.0.1:1/platform');
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n')).toEqual([
        'migrate failed: DATABASE_URL: cannot connect to PostgreSQL at postgresql://platform:***@127.0.0.1:1/platform: connection refused (is the server running, and on that port?)',
      ]);
    },
    TIMEOUT,
  );
});
