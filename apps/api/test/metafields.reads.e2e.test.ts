/**
 * PostgreSQL: what a bulk set's reads of stored values read. Each (owner, namespace, key) is one
 * probe of the unique index whatever the table's statistics (src/metafields/value-sql.ts): in
 * bench/recheck (100,000 values written just before), IN lists on the index's columns were planned
 * as a filter over every value of the store, and a join to the triples as a hash of all of them,
 * 10 and 80 ms a read. This checks the reads stay about the rows wanted in a store of many values
 * whose statistics were taken before they were written. (Those plans depend on the planner's
 * estimates, which this set-up did not reproduce: the old IN lists pass here too.) Rows read come
 * from PostgreSQL's own counters for the transaction (pg_stat_xact_user_tables).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readValues, type ValueKey } from '../src/metafields/value-sql';
import { startPlatform, type TestPlatform } from './harness';
import { PLATFORM_ENV, storeWithProducts, type Api } from './metafields.helpers';

const STORED = 20_000;

describe.runIf(process.env.TEST_DATABASE_URL)('bulk set reads on PostgreSQL, with statistics taken before an import', () => {
  let t: TestPlatform;
  let api: Api;
  let storeId: bigint;
  let products: string[];

  const entries = (value: string) =>
    products.map((owner) => ({
      owner_resource: 'products',
      owner_id: owner,
      namespace: 'bulk',
      key: 'set',
      type: 'single_line_text_field',
      value,
    }));

  beforeAll(async () => {
    t = await startPlatform(PLATFORM_ENV);
    // Statistics taken while the table held a few values, then many written at once (an import)
    // before autovacuum analyses it again (kept off for the test's life).
    await t.db.prisma.$executeRawUnsafe('ALTER TABLE metafields SET (autovacuum_enabled = false)');
    const s = await storeWithProducts(t, 'values-reads', 25);
    api = s.api;
    storeId = BigInt(s.store.id);
    products = s.productIds;
    expect((await api.set(entries('first'))).status).toBe(200);
    await t.db.prisma.$executeRawUnsafe('ANALYZE metafields');
    await t.db.prisma.$executeRawUnsafe(
      `INSERT INTO metafields (store_id, owner_resource, owner_id, namespace, "key", "type", "value", valid, invalid_reasons, checked_revision, created_at, updated_at)
       SELECT $1, 'products', 1000000 + g, 'bulk', 'score', 'number_integer', g::text, true, '[]', 0, now(), now() FROM generate_series(1, ${STORED}) g`,
      storeId,
    );
  }, 120_000);
  afterAll(async () => t?.close());

  /** Rows of metafields this transaction read so far. */
  const readSoFar = async (tx: Parameters<Parameters<TestPlatform['db']['prisma']['$transaction']>[0]>[0]) =>
    Number(
      (
        await tx.$queryRawUnsafe<{ n: bigint }[]>(
          `SELECT COALESCE(SUM(seq_tup_read + COALESCE(idx_tup_fetch, 0)), 0) AS n FROM pg_stat_xact_user_tables WHERE relname = 'metafields'`,
        )
      )[0]!.n,
    );

  it('read, and locked, each value by its own index entry: about the rows wanted, not the store', async () => {
    const triples: ValueKey[] = products.map((owner) => ({ ownerId: BigInt(owner), namespace: 'bulk', key: 'set' }));
    // One of them twice, and one that is not stored: read once, and not at all.
    triples.push(triples[0]!, { ownerId: 999n, namespace: 'bulk', key: 'set' });
    for (const lock of [false, true]) {
      const { rows, read } = await t.db.prisma.$transaction(async (tx) => {
        const start = await readSoFar(tx);
        const rows = await readValues(tx, 'postgresql', storeId, 'products', triples, lock);
        return { rows, read: (await readSoFar(tx)) - start };
      });
      expect(rows.map((r) => [r.ownerId.toString(), r.key, r.value])).toEqual(products.map((p) => [p, 'set', 'first']));
      expect(rows.map((r) => r.id)).toEqual([...rows.map((r) => r.id)].sort((a, b) => (a < b ? -1 : 1)));
      expect(read, `rows read with lock=${lock}`).toBeLessThan(200);
    }
  });

  it('a bulk set over a store of many values still overwrites exactly its own', async () => {
    const r = await api.set(entries('second'));
    expect(r.status).toBe(200);
    expect(r.body.metafields.map((m: { value: string }) => m.value)).toEqual(products.map(() => 'second'));
    const counted = await t.db.prisma.metafield.count({ where: { storeId } });
    expect(counted).toBe(STORED + products.length);
  });
});
