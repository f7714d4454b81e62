import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NOW, TIMEOUT } from './databases.test-support';
import { createDb, migrate, Prisma, type Db } from './index';
import { keepStatementsPrepared, PREPARED_TEXT_BUDGET_CHARS, PREPARED_TEXT_MAX_CHARS } from './sqlite-statements';

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
  const kept = () => {
    const db = new Database(':memory:');
    const prepare = vi.spyOn(db, 'prepare');
    keepStatementsPrepared(db);
    const statement = db.prepare as unknown as (sql: string) => { bind(args: unknown[]): { raw(): { all(): unknown[] } } };
    return { db, prepare, run: (sql: string) => statement(sql).bind([]).raw().all() };
  };
  // A text of about `chars` characters that selects `n`.
  const text = (n: number, chars: number) => {
    const head = `SELECT ${n} AS n -- `;
    return head + 'x'.repeat(Math.max(0, chars - head.length));
  };

  it('keeps texts up to the budget of characters, then starts over', () => {
    const { db, prepare, run } = kept();
    try {
      const size = 1000;
      const fit = Math.floor(PREPARED_TEXT_BUDGET_CHARS / size);
      for (let i = 0; i < fit; i++) expect(run(text(i, size))).toEqual([[i]]);
      expect(prepare).toHaveBeenCalledTimes(fit);
      expect(run(text(0, size))).toEqual([[0]]);
      expect(prepare).toHaveBeenCalledTimes(fit);
      // One more does not fit: the cache starts over with it, so the first is prepared again.
      expect(run(text(fit, size))).toEqual([[fit]]);
      expect(run(text(0, size))).toEqual([[0]]);
      expect(prepare).toHaveBeenCalledTimes(fit + 2);
    } finally {
      db.close();
    }
  });

  it('prepares a text longer than PREPARED_TEXT_MAX_CHARS for each run, keeping nothing of it', () => {
    const { db, prepare, run } = kept();
    try {
      const long = text(7, PREPARED_TEXT_MAX_CHARS + 1);
      expect(run(long)).toEqual([[7]]);
      expect(run(long)).toEqual([[7]]);
      expect(prepare).toHaveBeenCalledTimes(2);
    } finally {
      db.close();
    }
  });
});
