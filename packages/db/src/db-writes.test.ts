import { expect, it } from 'vitest';
import { eachDatabase, NOW, TIMEOUT, type SuiteDatabase } from './databases.test-support';
import { allocateIds, inOutboxTransaction, insertRows, updateRows, watchOutbox } from './index';

// Writes in bulk and the outbox, on every provider and driver (the rest of the database's
// behaviour: db.test.ts).

eachDatabase((d: SuiteDatabase) => {
  const { stamp, newStore } = d;

  it(
    'reserves ids in bulk that no other reservation or insert takes, and writes multi-row inserts Prisma reads back (issue 17)',
    async () => {
      const store = await newStore(`bulk-${stamp}`);
      const reserve = (count: number) => d.db.prisma.$transaction((tx) => allocateIds(tx, d.db, 'products', count));
      const [first, second] = await Promise.all([reserve(300), reserve(300)]);
      expect(new Set([...first!, ...second!]).size).toBe(600);
      expect(first).toEqual([...first!].sort((a, b) => (a < b ? -1 : 1)));
      await d.db.prisma.$transaction((tx) =>
        insertRows(
          tx,
          d.db,
          'products',
          ['id', 'store_id', 'handle', 'title', 'status', 'doc', 'listing_doc', 'published_at', 'created_at', 'updated_at'],
          first!.map((id, i) => [id, store.id, `h${i}`, `Bulk ${i} ✓`, 'active', '{}', Buffer.from(`{"i":${i}}`), null, NOW, NOW]),
        ),
      );
      const read = await d.db.prisma.product.findMany({ where: { storeId: store.id }, orderBy: { id: 'asc' } });
      expect(read.map((p) => p.id)).toEqual(first);
      expect(read[7]).toMatchObject({ title: 'Bulk 7 ✓', publishedAt: null, createdAt: NOW, updatedAt: NOW });
      expect(Buffer.from(read[7]!.listingDoc!).toString()).toBe('{"i":7}');
      // An insert without an id lands above every reserved id, used or not.
      const after = await d.db.prisma.product.create({
        data: { updatedAt: NOW, storeId: store.id, handle: 'next', title: 'next', doc: '{}' },
      });
      expect(after.id).toBeGreaterThan(second![299]!);
      expect(after.id).toBeGreaterThan(first![299]!);
    },
    TIMEOUT,
  );

  it(
    'bulk inserts and updates are part of their transaction: a rollback takes back every statement of them (issue 17)',
    async () => {
      const store = await newStore(`bulk-rollback-${stamp}`);
      const columns = ['store_id', 'owner_resource', 'owner_id', 'namespace', 'key', 'type', 'value', 'valid', 'updated_at'];
      // More rows than one statement holds on any path (8,000 parameters; 8 KB of text when run on
      // better-sqlite3's connection directly), with a boolean, a Date and text to carry.
      const rows = Array.from({ length: 1_200 }, (_, i) => [
        store.id,
        'products',
        BigInt(i + 1),
        'rb',
        'k',
        'single_line_text_field',
        `v${i} ✓`,
        i % 2 === 0,
        NOW,
      ]);
      const count = () => d.db.prisma.metafield.count({ where: { storeId: store.id } });
      const verdict = {
        match: ['id'],
        set: ['value'],
        pgTypes: { id: 'bigint', value: 'text' },
      };
      await expect(
        d.db.prisma.$transaction(async (tx) => {
          await insertRows(tx, d.db, 'metafields', columns, rows);
          const inside = await tx.metafield.findMany({ where: { storeId: store.id }, select: { id: true } });
          expect(inside).toHaveLength(1_200);
          expect(
            await updateRows(
              tx,
              d.db,
              'metafields',
              verdict,
              inside.map((r) => [r.id, 'changed']),
            ),
          ).toBe(1_200);
          throw new Error('taken back');
        }),
      ).rejects.toThrow('taken back');
      expect(await count()).toBe(0);
      await d.db.prisma.$transaction((tx) => insertRows(tx, d.db, 'metafields', columns, rows));
      const read = await d.db.prisma.metafield.findMany({ where: { storeId: store.id }, orderBy: { ownerId: 'asc' } });
      expect(read).toHaveLength(1_200);
      expect(read[1_199]).toMatchObject({ ownerId: 1_200n, value: 'v1199 ✓', valid: false, updatedAt: NOW });
      expect(read[0]).toMatchObject({ valid: true });
      // On better-sqlite3 the statements ran on Prisma's own connection, inside its transaction.
      if (d.driver === 'better-sqlite3') {
        const connection = d.db.adapterConnection();
        expect(connection?.inTransaction).toBe(false);
        expect(await d.db.prisma.$transaction(async () => connection?.inTransaction)).toBe(true);
      } else expect(d.db.adapterConnection()).toBeUndefined();
    },
    TIMEOUT,
  );

  it(
    'bulk writes of two transactions at once each land in their own: the one rolled back leaves nothing, the other keeps all',
    async () => {
      const store = await newStore(`bulk-two-${stamp}`);
      const columns = ['store_id', 'owner_resource', 'owner_id', 'namespace', 'key', 'type', 'value', 'updated_at'];
      const rows = (namespace: string) =>
        Array.from({ length: 900 }, (_, i) => [
          store.id,
          'products',
          BigInt(i + 1),
          namespace,
          'k',
          'single_line_text_field',
          `${namespace}${i}`,
          NOW,
        ]);
      const kept = d.db.prisma.$transaction(async (tx) => {
        await insertRows(tx, d.db, 'metafields', columns, rows('kept'));
        await new Promise((resolve) => setTimeout(resolve, 20));
        await insertRows(tx, d.db, 'metafields', columns, rows('kept2'));
      });
      const undone = d.db.prisma
        .$transaction(async (tx) => {
          await insertRows(tx, d.db, 'metafields', columns, rows('undone'));
          await new Promise((resolve) => setTimeout(resolve, 20));
          await insertRows(tx, d.db, 'metafields', columns, rows('undone2'));
          throw new Error('taken back');
        })
        .catch((error: unknown) => error);
      await kept;
      expect(await undone).toMatchObject({ message: 'taken back' });
      const namespaces = await d.db.prisma.metafield.groupBy({ by: ['namespace'], where: { storeId: store.id }, _count: true });
      expect(namespaces.map((n) => [n.namespace, n._count]).sort()).toEqual([
        ['kept', 900],
        ['kept2', 900],
      ]);
    },
    TIMEOUT,
  );

  it(
    "PostgreSQL: bulk statements run on the transaction's own connection, and one kept past its transaction refuses to run",
    async () => {
      if (d.provider !== 'postgresql') {
        expect(await d.db.prisma.$transaction((tx) => d.db.transactionConnection(tx))).toBeUndefined();
        return;
      }
      const store = await newStore(`bulk-own-${stamp}`);
      let kept: Awaited<ReturnType<typeof d.db.transactionConnection>>;
      await d.db.prisma.$transaction(async (tx) => {
        kept = await d.db.transactionConnection(tx);
        const [mine] = await tx.$queryRawUnsafe<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
        const [own] = await kept!.rows<{ pid: number }>('SELECT pg_backend_pid() AS pid', []);
        expect(own?.pid).toBe(mine?.pid);
        expect(await d.db.transactionConnection(tx)).toBe(kept); // found once per transaction
        // Full chunks of a big insert run prepared (parsed and planned once per connection), with
        // generic plans only while the insert runs.
        const columns = ['store_id', 'owner_resource', 'owner_id', 'namespace', 'key', 'type', 'value', 'updated_at'];
        const rows = Array.from({ length: 450 }, (_, i) => [
          store.id,
          'products',
          BigInt(i + 1),
          'own',
          'k',
          'single_line_text_field',
          `v${i}`,
          NOW,
        ]);
        await insertRows(tx, d.db, 'metafields', columns, rows);
        const prepared = await kept!.rows<{ statement: string }>(
          `SELECT statement FROM pg_prepared_statements WHERE statement LIKE 'INSERT INTO "metafields"%'`,
          [],
        );
        expect(prepared.length).toBeGreaterThan(0);
        const [mode] = await tx.$queryRawUnsafe<{ plan_cache_mode: string }[]>('SHOW plan_cache_mode');
        expect(mode?.plan_cache_mode).toBe('auto');
        expect(await tx.metafield.count({ where: { storeId: store.id, namespace: 'own' } })).toBe(450);
      });
      // The connection went back to the pool (and may be serving another transaction by now).
      await expect(kept!.run(`UPDATE stores SET name = 'hijacked' WHERE id = $1`, [store.id])).rejects.toThrow(
        /Transaction already closed/,
      );
      await d.db.prisma.$transaction(async (tx) => {
        await tx.$queryRawUnsafe('SELECT 1');
        await expect(kept!.run(`UPDATE stores SET name = 'hijacked' WHERE id = $1`, [store.id])).rejects.toThrow(
          /Transaction already closed/,
        );
      });
      expect((await d.db.prisma.store.findUniqueOrThrow({ where: { id: store.id } })).name).not.toBe('hijacked');
    },
    TIMEOUT,
  );

  it(
    'a bulk insert refused by a foreign key fails as a raw statement through Prisma does, on every path (P2010 with the kind)',
    async () => {
      const columns = ['id', 'product_id', 'position', 'name'];
      const refused = await d.db.prisma
        .$transaction((tx) => insertRows(tx, d.db, 'product_options', columns, [[9_000_001n, 9_999_999n, 1, 'Size']]))
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'P2010', meta: { driverAdapterError: { cause: { kind: 'ForeignKeyConstraintViolation' } } } });
    },
    TIMEOUT,
  );

  it(
    'inOutboxTransaction wakes the senders when it commits, never when it rolls back',
    async () => {
      const store = await newStore(`wake-${stamp}`);
      const app = await d.db.prisma.app.create({
        data: { updatedAt: NOW, name: 'Hooks', kind: 'private', appKey: `wake-${stamp}`, appSecret: 's', storeId: store.id },
      });
      await d.db.prisma.installation.create({ data: { updatedAt: NOW, storeId: store.id, appId: app.id, scopes: 'read_inventory' } });
      const topic = 'inventory_items/update';
      await d.db.prisma.webhookSubscription.create({
        data: { updatedAt: NOW, storeId: store.id, appId: app.id, topic, address: 'https://hooks.example.com/w', apiVersion: 'v20260901' },
      });
      const event = { storeId: store.id, topic, now: NOW, render: () => '{}', appMayReceive: () => true };
      let wakes = 0;
      const watch = watchOutbox(
        d.db.url,
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
          inOutboxTransaction(d.db, async (_tx, emit) => {
            expect(await emit(event)).toBe(1);
            throw new Error('rolled back');
          }),
        ).rejects.toThrow('rolled back');
        // A wake takes milliseconds to arrive: after a pause of many, none came.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(wakes).toBe(before);
        expect(await d.db.prisma.webhookDelivery.count({ where: { storeId: store.id } })).toBe(0);
        await inOutboxTransaction(d.db, (_tx, emit) => emit(event));
        await settled(() => wakes > before);
        expect(wakes).toBeGreaterThan(before);
        expect(await d.db.prisma.webhookDelivery.count({ where: { storeId: store.id } })).toBe(1);
      } finally {
        await watch.close();
      }
    },
    TIMEOUT,
  );
});
