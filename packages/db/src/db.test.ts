import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { throwawayPgDatabase } from './databases.test-support';
import {
  allocateIds,
  createDb,
  inOutboxTransaction,
  insertRows,
  migrate,
  openPgSession,
  Prisma,
  syncIdSequence,
  watchOutbox,
  type Db,
  type SqliteDriver,
} from './index';
import type { Provider } from './provider';

// The database's behaviour on every provider and driver, each migrated from nothing (the migrations
// themselves: migrations.test.ts).

/** No model stamps updated_at by itself (README, Timestamps): rows made here give theirs. */
const NOW = new Date('2026-11-24T10:00:00Z');

const TIMEOUT = 60_000;

/** The same checks on every provider and driver: a real database, migrated from nothing. */
function databaseSuite(provider: Provider, url: () => string, driver?: SqliteDriver): void {
  let db: Db;
  const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

  beforeAll(() => {
    db = createDb(url(), driver ? { sqliteDriver: driver } : {});
  });
  afterAll(async () => {
    await db?.close();
  });

  async function newStore(handle: string) {
    return db.prisma.store.create({
      data: {
        updatedAt: NOW,
        handle,
        name: `Store ${handle}`,
        email: 'owner@example.com',
        customerEmail: 'help@example.com',
        merchantId: 7n,
      },
    });
  }

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
    'reserves ids in bulk that no other reservation or insert takes, and writes multi-row inserts Prisma reads back (issue 17)',
    async () => {
      const store = await newStore(`bulk-${stamp}`);
      const reserve = (count: number) => db.prisma.$transaction((tx) => allocateIds(tx, db.provider, 'products', count));
      const [first, second] = await Promise.all([reserve(300), reserve(300)]);
      expect(new Set([...first!, ...second!]).size).toBe(600);
      expect(first).toEqual([...first!].sort((a, b) => (a < b ? -1 : 1)));
      await db.prisma.$transaction((tx) =>
        insertRows(
          tx,
          db.provider,
          'products',
          ['id', 'store_id', 'handle', 'title', 'status', 'doc', 'listing_doc', 'published_at', 'created_at', 'updated_at'],
          first!.map((id, i) => [id, store.id, `h${i}`, `Bulk ${i} ✓`, 'active', '{}', Buffer.from(`{"i":${i}}`), null, NOW, NOW]),
        ),
      );
      const read = await db.prisma.product.findMany({ where: { storeId: store.id }, orderBy: { id: 'asc' } });
      expect(read.map((p) => p.id)).toEqual(first);
      expect(read[7]).toMatchObject({ title: 'Bulk 7 ✓', publishedAt: null, createdAt: NOW, updatedAt: NOW });
      expect(Buffer.from(read[7]!.listingDoc!).toString()).toBe('{"i":7}');
      // An insert without an id lands above every reserved id, used or not.
      const after = await db.prisma.product.create({
        data: { updatedAt: NOW, storeId: store.id, handle: 'next', title: 'next', doc: '{}' },
      });
      expect(after.id).toBeGreaterThan(second![299]!);
      expect(after.id).toBeGreaterThan(first![299]!);
    },
    TIMEOUT,
  );

  it(
    'inOutboxTransaction wakes the senders when it commits, never when it rolls back',
    async () => {
      const store = await newStore(`wake-${stamp}`);
      const app = await db.prisma.app.create({
        data: { updatedAt: NOW, name: 'Hooks', kind: 'private', appKey: `wake-${stamp}`, appSecret: 's', storeId: store.id },
      });
      await db.prisma.installation.create({ data: { updatedAt: NOW, storeId: store.id, appId: app.id, scopes: 'read_inventory' } });
      const topic = 'inventory_items/update';
      await db.prisma.webhookSubscription.create({
        data: { updatedAt: NOW, storeId: store.id, appId: app.id, topic, address: 'https://hooks.example.com/w', apiVersion: 'v20260901' },
      });
      const event = { storeId: store.id, topic, now: NOW, render: () => '{}', appMayReceive: () => true };
      let wakes = 0;
      const watch = watchOutbox(
        db.url,
        () => wakes++,
        () => undefined,
      );
      const settled = async (until: () => boolean) => {
        for (let i = 0; i < 500 && !until(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      };
      try {
        await watch.ready;
        await settled(() => wakes > 0); // one wake once the watch is in place
        const before = wakes;
        await expect(
          inOutboxTransaction(db, async (_tx, emit) => {
            expect(await emit(event)).toBe(1);
            throw new Error('rolled back');
          }),
        ).rejects.toThrow('rolled back');
        // A wake takes milliseconds to arrive: after a pause of many, none came.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(wakes).toBe(before);
        expect(await db.prisma.webhookDelivery.count({ where: { storeId: store.id } })).toBe(0);
        await inOutboxTransaction(db, (_tx, emit) => emit(event));
        await settled(() => wakes > before);
        expect(wakes).toBeGreaterThan(before);
        expect(await db.prisma.webhookDelivery.count({ where: { storeId: store.id } })).toBe(1);
      } finally {
        await watch.close();
      }
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
      'sets WAL, busy_timeout and foreign_keys on every connection, also after transactions',
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
      },
      TIMEOUT,
    );
  }
}

describe('SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-db-'));
  const url = `file:${join(dir, 'platform.db')}`;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeAll(async () => {
    await migrate(url);
  }, TIMEOUT);

  describe.each(['libsql', 'better-sqlite3'] as const)('driver %s', (driver) => {
    // a database of its own, so ids start from 1
    const own = `file:${join(dir, `${driver}.db`)}`;
    beforeAll(async () => {
      await migrate(own);
    }, TIMEOUT);
    databaseSuite('sqlite', () => own, driver);
  });

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

  describe('queries', () => {
    databaseSuite('postgresql', url);
  });

  it(
    'openPgSession keeps Db.query conventions on a connection of its own, and opens another when it is lost',
    async () => {
      const session = openPgSession(url());
      try {
        const read = 'SELECT ?::bigint AS n, ?::timestamp AS at';
        expect(await session.query(read, [5n, NOW])).toEqual([{ n: 5n, at: NOW }]);
        expect(await session.query(read, [6n, NOW])).toEqual([{ n: 6n, at: NOW }]); // the prepared statement again
        const [own] = await session.query<{ pid: bigint }>('SELECT pg_backend_pid() AS pid WHERE ? = 1', [1]);
        // Waits (up to 5 s) until the backend is gone: without the wait the next query could still be
        // answered by it, and the one after meet the dead connection (an occasional failure here).
        await database.admin('SELECT pg_terminate_backend($1, 5000)', [Number(own!.pid)]);
        // The query that meets the dead connection may fail; the next one runs on a new connection.
        await session.query(read, [7n, NOW]).catch(() => undefined);
        expect(await session.query(read, [8n, NOW])).toEqual([{ n: 8n, at: NOW }]);
        const [again] = await session.query<{ pid: bigint }>('SELECT pg_backend_pid() AS pid WHERE ? = 1', [1]);
        expect(again!.pid).not.toBe(own!.pid);
      } finally {
        await session.close();
      }
    },
    TIMEOUT,
  );
});
