import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NOW, TIMEOUT } from './databases.test-support';
import { createDb, migrate, Prisma, type Db } from './index';
import { keepStatementsPrepared, PREPARED_STATEMENTS_MAX } from './sqlite-statements';

// Prisma's better-sqlite3 adapter prepares every statement anew; @platform/db keeps them prepared
// (sqlite-statements.ts). What the ORM returns must not change, only how often SQLite parses.

describe('SQLite (better-sqlite3): statements kept prepared', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-db-statements-'));
  const url = `file:${join(dir, 'platform.db')}`;
  let db: Db;
  const prepare = vi.spyOn(Database.prototype, 'prepare');
  beforeAll(async () => {
    await migrate(url);
    db = createDb(url, { sqliteDriver: 'better-sqlite3' });
  }, TIMEOUT);
  afterAll(async () => {
    await db.close();
    prepare.mockRestore();
    rmSync(dir, { recursive: true, force: true });
  });

  const store = (handle: string) =>
    db.prisma.store.create({
      data: {
        updatedAt: NOW,
        handle,
        name: handle.toUpperCase(),
        email: `${handle}@example.com`,
        customerEmail: 'c@example.com',
        merchantId: 7n,
      },
    });
  const textsPrepared = () => prepare.mock.calls.map((call) => String(call[0]));

  it(
    'a query run again is not prepared again, and each run reads with its own parameters',
    async () => {
      const a = await store('statements-a');
      const b = await store('statements-b');
      prepare.mockClear();
      const first = await db.prisma.store.findUnique({ where: { id: a.id } });
      const second = await db.prisma.store.findUnique({ where: { id: b.id } });
      const again = await db.prisma.store.findUnique({ where: { id: a.id } });
      expect(first).toEqual(a);
      expect(second).toEqual(b);
      expect(again).toEqual(a);
      const selects = textsPrepared().filter((sql) => sql.startsWith('SELECT'));
      // Prisma's first run of the query may prepare it; the next two only reuse it.
      expect(selects.length).toBeLessThanOrEqual(1);
    },
    TIMEOUT,
  );

  it(
    'raw reads, writes, refusals and transactions behave as before',
    async () => {
      const s = await store('statements-raw');
      prepare.mockClear();
      for (const handle of ['statements-raw', 'nothing-here']) {
        const rows = await db.prisma.$queryRawUnsafe<{ id: unknown; handle: string }[]>(
          'SELECT id, handle FROM stores WHERE handle = ?',
          handle,
        );
        // (an INTEGER column comes back from a raw query as a number, as it did before)
        expect(rows).toEqual(handle === 'nothing-here' ? [] : [{ id: Number(s.id), handle }]);
      }
      const changed = await db.prisma.$executeRawUnsafe('UPDATE stores SET name = ? WHERE id = ?', 'Renamed', s.id);
      expect(changed).toBe(1);
      expect((await db.prisma.store.findUniqueOrThrow({ where: { id: s.id } })).name).toBe('Renamed');
      // The same insert twice: the second is refused by the unique handle, as the ORM's P2002.
      const duplicate = await store('statements-raw').catch((error: unknown) => error);
      expect(duplicate).toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
      expect((duplicate as Prisma.PrismaClientKnownRequestError).code).toBe('P2002');
      // A transaction rolled back leaves nothing, one committed keeps its writes.
      await expect(
        db.prisma.$transaction(async (tx) => {
          await tx.$executeRawUnsafe('UPDATE stores SET name = ? WHERE id = ?', 'Rolled back', s.id);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect((await db.prisma.store.findUniqueOrThrow({ where: { id: s.id } })).name).toBe('Renamed');
      await db.prisma.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('UPDATE stores SET name = ? WHERE id = ?', 'Committed', s.id);
      });
      expect((await db.prisma.store.findUniqueOrThrow({ where: { id: s.id } })).name).toBe('Committed');
      // Each text was prepared once at most, however often it ran.
      const texts = textsPrepared();
      expect(texts.length).toBe(new Set(texts).size);
    },
    TIMEOUT,
  );
});

describe('keepStatementsPrepared', () => {
  it('keeps at most PREPARED_STATEMENTS_MAX texts, then starts over', () => {
    const db = new Database(':memory:');
    try {
      const prepare = vi.spyOn(db, 'prepare');
      keepStatementsPrepared(db);
      const statement = db.prepare as unknown as (sql: string) => { bind(args: unknown[]): { raw(): { all(): unknown[] } } };
      const select = (i: number) => statement(`SELECT ${i} AS n`).bind([]).raw().all();
      for (let i = 0; i < PREPARED_STATEMENTS_MAX; i++) expect(select(i)).toEqual([[i]]);
      expect(prepare).toHaveBeenCalledTimes(PREPARED_STATEMENTS_MAX);
      expect(select(0)).toEqual([[0]]);
      expect(prepare).toHaveBeenCalledTimes(PREPARED_STATEMENTS_MAX);
      expect(select(PREPARED_STATEMENTS_MAX)).toEqual([[PREPARED_STATEMENTS_MAX]]);
      expect(select(0)).toEqual([[0]]);
      expect(prepare).toHaveBeenCalledTimes(PREPARED_STATEMENTS_MAX + 2);
    } finally {
      db.close();
    }
  });
});
