import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseUrl, onServer } from './testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, insertRows, migrate, updateRows, type Db, type RowUpdate, type SqliteDriver } from './index';
import type { Provider } from './provider';

// updateRows (issue 17): the multi-row UPDATE the metafield re-check writes its verdicts with, on
// every provider and driver, on a real database migrated from nothing.

const NOW = new Date('2026-11-24T10:00:00Z');
const TIMEOUT = 60_000;

const VERDICT: RowUpdate = {
  match: ['id', 'type', 'value'],
  set: ['valid', 'invalid_reasons', 'checked_revision'],
  pgTypes: { id: 'bigint', type: 'text', value: 'text', valid: 'boolean', invalid_reasons: 'text', checked_revision: 'integer' },
};

/** More rows than one statement's parameters hold (8,000 / 6 columns), so the write spans statements. */
const ROWS = 2_000;

function suite(provider: Provider, url: () => string, driver?: SqliteDriver): void {
  let db: Db;
  beforeAll(() => {
    db = createDb(url(), driver ? { sqliteDriver: driver } : {});
  });
  afterAll(async () => db?.close());

  async function valuesOfNewStore(handle: string): Promise<{ storeId: bigint; ids: bigint[] }> {
    const store = await db.prisma.store.create({
      data: { updatedAt: NOW, handle, name: handle, email: 'owner@example.com', customerEmail: 'help@example.com', merchantId: 7n },
    });
    const columns = ['store_id', 'owner_resource', 'owner_id', 'namespace', 'key', 'type', 'value', 'updated_at'];
    const rows = Array.from({ length: ROWS }, (_, i) => [
      store.id,
      'products',
      BigInt(i + 1),
      'bulk',
      'k',
      'single_line_text_field',
      `v${i} ✓`,
      NOW,
    ]);
    await db.prisma.$transaction((tx) => insertRows(tx, db, 'metafields', columns, rows));
    const ids = (await db.prisma.metafield.findMany({ where: { storeId: store.id }, orderBy: { id: 'asc' }, select: { id: true } })).map(
      (r) => r.id,
    );
    return { storeId: store.id, ids };
  }

  it(
    'changes every matching row across statements, typed as Prisma reads them back, and counts them',
    async () => {
      const { storeId, ids } = await valuesOfNewStore(`upd-${driver ?? provider}-${Date.now()}`);
      const reasons = (i: number) => JSON.stringify([`reason ${i} "quoted" ✓`]);
      const rows = ids.map((id, i) => [id, 'single_line_text_field', `v${i} ✓`, i % 2 === 0, reasons(i), 7]);
      const changed = await db.prisma.$transaction((tx) => updateRows(tx, db, 'metafields', VERDICT, rows));
      expect(changed).toBe(ROWS);
      const read = await db.prisma.metafield.findMany({ where: { storeId }, orderBy: { id: 'asc' } });
      expect(read.filter((r) => r.checkedRevision === 7)).toHaveLength(ROWS);
      expect(read[1_999]).toMatchObject({ valid: false, invalidReasons: reasons(1_999), value: 'v1999 ✓', updatedAt: NOW });
      expect(read[1_500]).toMatchObject({ valid: true, invalidReasons: reasons(1_500) });
    },
    TIMEOUT,
  );

  it(
    'a row whose fence columns no longer match (changed or deleted meanwhile) is left as it is',
    async () => {
      const { storeId, ids } = await valuesOfNewStore(`fence-${driver ?? provider}-${Date.now()}`);
      // Read as v0..v1999; then one value is rewritten, one changes type, one is deleted.
      await db.prisma.metafield.update({ where: { id: ids[10]! }, data: { value: 'rewritten', invalidReasons: '["new"]' } });
      await db.prisma.metafield.update({ where: { id: ids[1_700]! }, data: { type: 'multi_line_text_field' } });
      await db.prisma.metafield.delete({ where: { id: ids[20]! } });
      const rows = ids.map((id, i) => [id, 'single_line_text_field', `v${i} ✓`, false, '["stale"]', 3]);
      const changed = await db.prisma.$transaction((tx) => updateRows(tx, db, 'metafields', VERDICT, rows));
      expect(changed).toBe(ROWS - 3);
      const read = new Map((await db.prisma.metafield.findMany({ where: { storeId } })).map((r) => [r.id, r]));
      expect(read.get(ids[10]!)).toMatchObject({ value: 'rewritten', valid: true, invalidReasons: '["new"]', checkedRevision: 0 });
      expect(read.get(ids[1_700]!)).toMatchObject({ valid: true, invalidReasons: '[]', checkedRevision: 0 });
      expect(read.has(ids[20]!)).toBe(false);
      expect(read.get(ids[11]!)).toMatchObject({ valid: false, invalidReasons: '["stale"]', checkedRevision: 3 });
    },
    TIMEOUT,
  );

  it(
    'fences and writes text JSON escapes: quotes, backslashes, control characters, emoji, line separators',
    async () => {
      const store = await db.prisma.store.create({
        data: {
          updatedAt: NOW,
          handle: `text-${driver ?? provider}-${Date.now()}`,
          name: 't',
          email: 'o@example.com',
          customerEmail: 'h@example.com',
          merchantId: 7n,
        },
      });
      // Text the JSON form of SQLite's batch must carry exactly (a string JSON could mangle sends the
      // batch as a VALUES list instead).
      const texts = ['say "hi" \\ \\u0041 / </script>', 'line\nbreak\ttab\u0001\u001f', 'emoji 😀 and ✓ and \u2028'];
      const columns = ['store_id', 'owner_resource', 'owner_id', 'namespace', 'key', 'type', 'value', 'updated_at'];
      const rows = texts.map((text, i) => [store.id, 'products', BigInt(i + 1), 'text', 'k', 'single_line_text_field', text, NOW]);
      await db.prisma.$transaction((tx) => insertRows(tx, db, 'metafields', columns, rows));
      const stored = await db.prisma.metafield.findMany({ where: { storeId: store.id }, orderBy: { id: 'asc' } });
      // Fenced on the value as read back: each row is still "the value that was read".
      const verdicts = stored.map((r, i) => [r.id, r.type, r.value, false, JSON.stringify([texts[i]]), 9]);
      const changed = await db.prisma.$transaction((tx) => updateRows(tx, db, 'metafields', VERDICT, verdicts));
      const read = await db.prisma.metafield.findMany({ where: { storeId: store.id }, orderBy: { id: 'asc' } });
      expect(changed).toBe(texts.length);
      expect(read.map((r) => r.checkedRevision)).toEqual(texts.map(() => 9));
      expect(read[2]).toMatchObject({ value: texts[2], invalidReasons: JSON.stringify([texts[2]]) });
      expect(read[0]).toMatchObject({ value: 'say "hi" \\ \\u0041 / </script>', valid: false });
    },
    TIMEOUT,
  );

  it.runIf(provider === 'postgresql')(
    'reaches each row by its key: a few hundred rows of a larger table read about that many, not the table',
    async () => {
      const { ids } = await valuesOfNewStore(`keyed-${Date.now()}`);
      // Statistics that know the table: the planner then costed hashing all of it below one key
      // lookup per row, and read every metafield of every store to write a few hundred.
      await db.query('ANALYZE metafields');
      const rows = ids.slice(0, 500).map((id, i) => [id, 'single_line_text_field', `v${i} ✓`, false, '[]', 11]);
      const { changed, read, inTable } = await db.prisma.$transaction(async (tx) => {
        // The rows of metafields this session read (cumulative until the session reports them, so
        // read before and after).
        const counter = async () => {
          const [row] = await tx.$queryRawUnsafe<{ read: bigint }[]>(
            `SELECT seq_tup_read + COALESCE(idx_tup_fetch, 0) AS read FROM pg_stat_xact_user_tables WHERE relname = 'metafields'`,
          );
          return Number(row?.read ?? 0);
        };
        const before = await counter();
        const changed = await updateRows(tx, db, 'metafields', VERDICT, rows);
        const read = (await counter()) - before;
        const [count] = await tx.$queryRawUnsafe<{ n: bigint }[]>('SELECT COUNT(*) AS n FROM metafields');
        return { changed, read, inTable: Number(count?.n ?? 0) };
      });
      expect(changed).toBe(500);
      expect(inTable).toBeGreaterThanOrEqual(ROWS);
      expect(read).toBeLessThan(2 * rows.length);
    },
    TIMEOUT,
  );

  it(
    'refuses names that are not plain SQL names and columns without a PostgreSQL type',
    async () => {
      const run = (spec: RowUpdate, table = 'metafields') =>
        db.prisma.$transaction((tx) => updateRows(tx, db, table, spec, [[1n, 'x', 'y', true, '[]', 1]]));
      await expect(run({ ...VERDICT, set: ['valid; DROP TABLE stores'] })).rejects.toThrow(/Not an SQL name/);
      await expect(run(VERDICT, 'metafields"')).rejects.toThrow(/Not an SQL name/);
      await expect(run({ ...VERDICT, pgTypes: { ...VERDICT.pgTypes, valid: '' } })).rejects.toThrow(/No PostgreSQL type for valid/);
    },
    TIMEOUT,
  );
}

describe('SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-bulk-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  describe.each(['libsql', 'better-sqlite3'] as const)('driver %s', (driver) => {
    const url = `file:${join(dir, `${driver}.db`)}`;
    beforeAll(async () => {
      await migrate(url);
    }, TIMEOUT);
    suite('sqlite', () => url, driver);
  });
});

const pgUrl = process.env['TEST_DATABASE_URL'];

describe.runIf(pgUrl?.startsWith('postgres'))('PostgreSQL (TEST_DATABASE_URL)', () => {
  const name = `platform_bulk_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  const url = () => databaseUrl(pgUrl!, name);
  const admin = (sql: string) => onServer(pgUrl!, sql);
  beforeAll(async () => {
    await admin(`CREATE DATABASE ${name}`);
    await migrate(url());
  }, TIMEOUT);
  afterAll(async () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`), TIMEOUT);
  suite('postgresql', url);
});
