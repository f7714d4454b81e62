import { mkdtempSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TIMEOUT } from './databases.test-support';
import { createDb, migrate, type Db } from './index';
import type { SqliteDriver } from './sqlite';

// Every file the migrations create has auto_vacuum=INCREMENTAL (sqlitePragmas), and Db.query runs
// `PRAGMA incremental_vacuum` to its end on both drivers: it frees one page a step, and a
// one-statement call stepped it once (the sender's retention gave 1 page of 2,000 back).

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function pragma(db: Db, name: string): Promise<number> {
  const [row] = await db.query<Record<string, bigint>>(`PRAGMA ${name}`);
  return Number(Object.values(row!)[0]);
}

describe.each<SqliteDriver>(['better-sqlite3', 'libsql'])('SQLite (%s): free pages go back to the file system', (driver) => {
  it(
    'a migrated file is INCREMENTAL, and one PRAGMA incremental_vacuum through Db.query frees every free page',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'platform-db-vacuum-'));
      dirs.push(dir);
      const url = `file:${join(dir, 'platform.db')}`;
      await migrate(url, { sqliteDriver: driver });
      const db = createDb(url, { sqliteDriver: driver });
      try {
        expect(await pragma(db, 'auto_vacuum')).toBe(2);
        await db.query('CREATE TABLE scratch (x BLOB)');
        await db.query(
          'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) INSERT INTO scratch SELECT randomblob(8000) FROM n',
        );
        const full = await pragma(db, 'page_count');
        await db.query('DELETE FROM scratch');
        expect(await pragma(db, 'freelist_count')).toBeGreaterThan(500);
        await db.query('PRAGMA incremental_vacuum');
        expect(await pragma(db, 'freelist_count')).toBe(0);
        expect(await pragma(db, 'page_count')).toBeLessThan(full - 500);
      } finally {
        await db.close();
      }
    },
    TIMEOUT,
  );

  it(
    'a new connection to a migrated file reads at once while another connection holds the write lock (its pragmas take no lock)',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'platform-db-open-'));
      dirs.push(dir);
      const file = join(dir, 'platform.db');
      await migrate(`file:${file}`, { sqliteDriver: driver });
      // Another writer (a process writing events, say) in the middle of its transaction, for as long
      // as this test runs: before, a new connection set auto_vacuum, which waited for that lock and
      // failed with "database is locked" after busy_timeout.
      const writer = new Database(file);
      writer.exec('BEGIN IMMEDIATE');
      const db = createDb(`file:${file}`, { sqliteDriver: driver });
      try {
        expect(await db.query<{ n: bigint }>('SELECT COUNT(*) AS n FROM stores')).toEqual([{ n: 0n }]);
        expect(await pragma(db, 'auto_vacuum')).toBe(2);
        expect(await pragma(db, 'foreign_keys')).toBe(1);
      } finally {
        await db.close();
        writer.exec('ROLLBACK');
        writer.close();
      }
    },
    TIMEOUT,
  );
});
