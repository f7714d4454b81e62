import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eachDatabase, NOW, throwawayPgDatabase, TIMEOUT, type SuiteDatabase } from './databases.test-support';
import { createDb, migrate, Prisma, syncIdSequence, type Db } from './index';

// The database's behaviour on every provider and driver, each migrated from nothing (the migrations
// themselves: migrations.test.ts; bulk writes and the outbox: db-writes.test.ts).

/** The same checks on every provider and driver: a real database, migrated from nothing. */
function databaseSuite(d: SuiteDatabase): void {
  const { provider, stamp, newStore } = d;
  let db: Db;
  beforeAll(() => {
    db = d.db;
  });

  it('reports its provider', () => {
    expect(db.provider).toBe(provider);
  });

  it(
    'creates a store, app, installation, token and product through Prisma',
    async () => {
      const store = await newStore(`s-${stamp}`);
      expect(typeof store.id).toBe('bigint');
      expect(store.currency).toBe('USD');
      expect(store.ianaTimezone).toBe('UTC');
      expect(store.status).toBe('active');
      expect(store.createdAt).toBeInstanceOf(Date);

      const app = await db.prisma.app.create({
        data: {
          updatedAt: NOW,
          name: 'Private',
          kind: 'private',
          appKey: `key-${stamp}`,
          appSecret: 'secret',
          scopes: 'read_products',
          storeId: store.id,
        },
      });
      const installation = await db.prisma.installation.create({
        data: { updatedAt: NOW, storeId: store.id, appId: app.id, scopes: 'read_products' },
      });
      const expiresAt = new Date('2029-11-22T04:05:01.123Z');
      const token = await db.prisma.accessToken.create({
        data: { installationId: installation.id, tokenHash: `hash-${stamp}`, expiresAt },
      });
      expect(token.expiresAt).toEqual(expiresAt);
      expect(token.supersededAt).toBeNull();

      // a nested write runs in a transaction
      const product = await db.prisma.product.create({
        data: {
          updatedAt: NOW,
          storeId: store.id,
          handle: 'shirt',
          title: 'Shirt',
          doc: JSON.stringify({ title: 'Shirt' }),
          variants: { create: [{ updatedAt: NOW, storeId: store.id, position: 1, sku: 'S-1', title: 'Small' }] },
          options: { create: [{ position: 1, name: 'Size' }] },
          images: { create: [{ position: 1, src: 'https://example.com/a.png' }] },
          media: { create: [{ position: 1, src: 'https://example.com/a.png', contentType: 'image' }] },
        },
        include: { variants: true },
      });
      const variant = product.variants[0]!;
      await db.prisma.inventoryItem.create({
        data: { updatedAt: NOW, storeId: store.id, variantId: variant.id, sku: 'S-1', cost: '12.50', locationType: 'warehouse' },
      });

      const found = await db.prisma.accessToken.findUnique({
        where: { tokenHash: `hash-${stamp}` },
        include: { installation: { include: { store: true, app: true } } },
      });
      expect(found?.installation.store.handle).toBe(`s-${stamp}`);
      expect(found?.installation.app.appKey).toBe(`key-${stamp}`);
      expect(await db.prisma.product.count({ where: { storeId: store.id } })).toBe(1);
    },
    TIMEOUT,
  );

  it(
    'gives increasing ids that compare numerically beyond 2^31 and 2^32',
    async () => {
      const store = await newStore(`ids-${stamp}`);
      const create = (handle: string, id?: bigint) =>
        db.prisma.product.create({
          data: { updatedAt: NOW, ...(id === undefined ? {} : { id }), storeId: store.id, handle, title: handle, doc: '{}' },
        });

      const a = await create('a');
      const b = await create('b');
      expect(b.id).toBeGreaterThan(a.id);

      const explicit = 2n ** 32n + 5n + BigInt(Math.floor(Math.random() * 1000));
      await create('big', explicit);
      await syncIdSequence(db, 'products');
      const after = await create('after');
      expect(after.id).toBeGreaterThan(explicit);
      expect(after.id).toBeGreaterThan(2n ** 32n);

      const ordered = await db.prisma.product.findMany({
        where: { storeId: store.id },
        orderBy: { id: 'asc' },
        select: { id: true, handle: true },
      });
      expect(ordered.map((p) => p.handle)).toEqual(['a', 'b', 'big', 'after']);

      // since_id-style paging compares numerically (decisions §3.5): as text, "4294967301" < "9"
      const page = await db.query<{ id: bigint; handle: string }>(
        'SELECT id, handle FROM products WHERE store_id = ? AND id > ? ORDER BY id LIMIT ?',
        [store.id, b.id, 10],
      );
      expect(page.map((p) => p.handle)).toEqual(['big', 'after']);
      expect(page[0]!.id).toBe(explicit);
    },
    TIMEOUT,
  );

  it(
    'query() returns rows with bigint integers, Date times and boolean booleans',
    async () => {
      const store = await newStore(`q-${stamp}`);
      const planExpiresAt = new Date('2027-01-02T03:04:05.678Z');
      await db.prisma.store.update({ where: { id: store.id }, data: { planExpiresAt } });
      const product = await db.prisma.product.create({
        data: {
          updatedAt: NOW,
          storeId: store.id,
          handle: 'p',
          title: 'P',
          doc: '{"title":"P"}',
          variants: { create: [{ updatedAt: NOW, storeId: store.id, position: 2, title: 'V' }] },
        },
        include: { variants: true },
      });
      await db.prisma.inventoryItem.create({
        data: { updatedAt: NOW, storeId: store.id, variantId: product.variants[0]!.id, tracked: false, locationType: 'warehouse' },
      });

      const [row] = await db.query('SELECT id, handle, merchant_id, plan_expires_at, created_at, updated_at FROM stores WHERE id = ?', [
        store.id,
      ]);
      expect(row).toEqual({
        id: store.id,
        handle: `q-${stamp}`,
        merchant_id: 7n,
        plan_expires_at: planExpiresAt,
        created_at: store.createdAt,
        updated_at: expect.any(Date),
      });

      const [variant] = await db.query<{ position: bigint; product_id: bigint; sku: string | null }>(
        'SELECT position, product_id, sku FROM product_variants WHERE product_id = ?',
        [product.id],
      );
      expect(variant).toEqual({ position: 2n, product_id: product.id, sku: null });

      const [item] = await db.query('SELECT tracked, cost FROM inventory_items WHERE store_id = ?', [store.id]);
      expect(item).toEqual({ tracked: false, cost: null });

      // Date parameters compare like Prisma stores them
      const later = await db.query('SELECT id FROM stores WHERE id = ? AND plan_expires_at > ?', [
        store.id,
        new Date('2027-01-02T03:04:05.000Z'),
      ]);
      expect(later).toHaveLength(1);
      const none = await db.query('SELECT id FROM stores WHERE id = ? AND plan_expires_at > ?', [
        store.id,
        new Date('2027-01-02T03:04:06.000Z'),
      ]);
      expect(none).toHaveLength(0);

      const [count] = await db.query<{ n: bigint }>('SELECT COUNT(*) AS n FROM products WHERE store_id = ?', [store.id]);
      expect(count!.n).toBe(1n);
    },
    TIMEOUT,
  );

  it(
    'surfaces a duplicate store handle as Prisma P2002',
    async () => {
      await newStore(`dup-${stamp}`);
      const error = await newStore(`dup-${stamp}`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
      expect((error as Prisma.PrismaClientKnownRequestError).code).toBe('P2002');
    },
    TIMEOUT,
  );

  it(
    'cascades deletes from a store (foreign keys are enforced)',
    async () => {
      const store = await newStore(`del-${stamp}`);
      await db.prisma.product.create({
        data: {
          updatedAt: NOW,
          storeId: store.id,
          handle: 'x',
          title: 'X',
          doc: '{}',
          variants: { create: [{ updatedAt: NOW, storeId: store.id, position: 1, title: 'V' }] },
        },
      });
      await db.prisma.store.delete({ where: { id: store.id } });
      expect(await db.query('SELECT id FROM products WHERE store_id = ?', [store.id])).toEqual([]);
      expect(await db.query('SELECT id FROM product_variants WHERE store_id = ?', [store.id])).toEqual([]);
      const orphan = await db.prisma.installation
        .create({ data: { updatedAt: NOW, storeId: store.id, appId: 1n, scopes: '' } })
        .catch((e: unknown) => e);
      expect(orphan).toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
    },
    TIMEOUT,
  );

  it(
    'rolls back a failed interactive transaction and serialises concurrent ones',
    async () => {
      const store = await newStore(`tx-${stamp}`);
      const failed = await db.prisma
        .$transaction(async (tx) => {
          await tx.product.create({ data: { updatedAt: NOW, storeId: store.id, handle: 'rolled-back', title: 'R', doc: '{}' } });
          throw new Error('abort');
        })
        .catch((e: unknown) => e);
      expect(failed).toEqual(new Error('abort'));
      expect(await db.prisma.product.count({ where: { storeId: store.id } })).toBe(0);

      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0
            ? db.prisma.product.create({
                data: {
                  updatedAt: NOW,
                  storeId: store.id,
                  handle: `c${i}`,
                  title: 'C',
                  doc: '{}',
                  variants: { create: [{ updatedAt: NOW, storeId: store.id, position: 1, title: 'V' }] },
                },
              })
            : db.prisma.$transaction(async (tx) => {
                const n = await tx.product.count({ where: { storeId: store.id } });
                return tx.product.create({ data: { updatedAt: NOW, storeId: store.id, handle: `c${i}`, title: String(n), doc: '{}' } });
              }),
        ),
      );
      expect(await db.prisma.product.count({ where: { storeId: store.id } })).toBe(20);
      const [variants] = await db.query<{ n: bigint }>('SELECT COUNT(*) AS n FROM product_variants WHERE store_id = ?', [store.id]);
      expect(variants!.n).toBe(10n);
    },
    TIMEOUT,
  );

  it(
    'keeps the single platform clock row',
    async () => {
      const instant = 1_798_761_600_000n; // 2027-01-01T00:00:00Z
      const data = { nowMs: instant, updatedAt: new Date() };
      const clock = await db.prisma.platformClock.upsert({ where: { id: 1 }, create: { id: 1, ...data }, update: data });
      expect(clock.nowMs).toBe(instant);
      const [row] = await db.query('SELECT id, now_ms FROM platform_clock');
      expect(row).toEqual({ id: 1n, now_ms: instant });
    },
    TIMEOUT,
  );

  if (provider === 'sqlite') {
    it(
      'sets WAL, busy_timeout, foreign_keys and temp_store on every connection, also after transactions',
      async () => {
        await db.prisma.$transaction(async (tx) => {
          await tx.store.count();
        });
        await db.prisma.$transaction([db.prisma.store.count(), db.prisma.app.count()]);
        for (const rows of [
          await db.prisma.$queryRawUnsafe<Record<string, unknown>[]>('PRAGMA busy_timeout'),
          await db.query('PRAGMA busy_timeout'),
        ]) {
          expect(Number(Object.values(rows[0]!)[0])).toBe(5000);
        }
        const fk = await db.prisma.$queryRawUnsafe<Record<string, unknown>[]>('PRAGMA foreign_keys');
        expect(Number(Object.values(fk[0]!)[0])).toBe(1);
        const [mode] = await db.query<{ journal_mode: string }>('PRAGMA journal_mode');
        expect(mode!.journal_mode).toBe('wal');
        // MEMORY (2): a multi-row write's statement journal never goes to a temporary file
        for (const rows of [
          await db.prisma.$queryRawUnsafe<Record<string, unknown>[]>('PRAGMA temp_store'),
          await db.query('PRAGMA temp_store'),
        ]) {
          expect(Number(Object.values(rows[0]!)[0])).toBe(2);
        }
      },
      TIMEOUT,
    );
  }
}

eachDatabase(databaseSuite);

describe('SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-db-'));
  const url = `file:${join(dir, 'platform.db')}`;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeAll(async () => {
    await migrate(url);
  }, TIMEOUT);

  it(
    'both drivers read what the other wrote, times included',
    async () => {
      const a = createDb(url, { sqliteDriver: 'libsql' });
      const b = createDb(url, { sqliteDriver: 'better-sqlite3' });
      try {
        const planExpiresAt = new Date('2030-05-06T07:08:09.010Z');
        const viaLibsql = await a.prisma.store.create({
          data: {
            updatedAt: NOW,
            handle: `x-${Date.now()}`,
            name: 'X',
            email: 'x@example.com',
            customerEmail: 'x@example.com',
            merchantId: 1n,
            planExpiresAt,
          },
        });
        const viaBetter = await b.prisma.store.findUniqueOrThrow({ where: { id: viaLibsql.id } });
        expect(viaBetter).toEqual(viaLibsql);
        const [rowA] = await a.query('SELECT * FROM stores WHERE id = ?', [viaLibsql.id]);
        const [rowB] = await b.query('SELECT * FROM stores WHERE id = ?', [viaLibsql.id]);
        expect(rowA).toEqual(rowB);
      } finally {
        await a.close();
        await b.close();
      }
    },
    TIMEOUT,
  );
});

const pgUrl = process.env['TEST_DATABASE_URL'];

describe.runIf(pgUrl?.startsWith('postgres'))('PostgreSQL (TEST_DATABASE_URL)', () => {
  const database = throwawayPgDatabase(pgUrl, 'platform_db_test');
  const url = () => database.url();

  beforeAll(async () => {
    await database.create();
    await migrate(url());
  }, TIMEOUT);
  afterAll(() => database.drop(), TIMEOUT);

  it(
    'a transaction kept 6 s (a lock held by a bulk write beside it, a loaded machine) commits: the bounds are 30 s, not the 5 s of Prisma itself',
    async () => {
      const db = createDb(url());
      try {
        const at = await db.prisma.$transaction(async (tx) => {
          await tx.$executeRaw`SELECT pg_sleep(6)`;
          return tx.$queryRaw<{ at: Date }[]>`SELECT now() AS at`;
        });
        expect(at).toHaveLength(1);
      } finally {
        await db.close();
      }
    },
    TIMEOUT,
  );
});
