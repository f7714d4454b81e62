import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';
import { PLATFORM_ENV, storeWithProducts, type Api } from './metafields.helpers';

// decisions §8.9: POST /metafields_set.json, 1 to 25 entries, all or nothing.

let t: TestPlatform;
let api: Api;
let storeId: bigint;
let products: string[];
let foreignProduct: string;

beforeAll(async () => {
  t = await startPlatform(PLATFORM_ENV);
  const s = await storeWithProducts(t, 'values-set', 3);
  api = s.api;
  storeId = BigInt(s.store.id);
  products = s.productIds;
  foreignProduct = (await storeWithProducts(t, 'values-set-other', 1)).productIds[0]!;
  await api.define({ namespace: 'bulk', key: 'stock', type: 'number_integer', validations: [{ name: 'min', value: '0' }] });
});
afterAll(async () => t?.close());

const entry = (owner: string, key: string, value: string, extra: Record<string, unknown> = {}) => ({
  owner_resource: 'products',
  owner_id: owner,
  namespace: 'bulk',
  key,
  type: 'single_line_text_field',
  value,
  ...extra,
});

const count = () => t.db.prisma.metafield.count({ where: { storeId } });

describe('POST /metafields_set.json (decisions §8.9)', () => {
  it('writes every entry in one go: 200 with the values in request order', async () => {
    const r = await api.set([
      entry(products[0]!, 'title', 'A'),
      entry(products[1]!, 'title', 'B'),
      { owner_resource: 'products', owner_id: products[0], namespace: 'bulk', key: 'stock', value: '4' },
    ]);
    expect(r.status).toBe(200);
    expect(r.body.metafields).toHaveLength(3);
    expect(r.body.metafields.map((m: { owner_id: string; key: string; value: string }) => [m.owner_id, m.key, m.value])).toEqual([
      [products[0], 'title', 'A'],
      [products[1], 'title', 'B'],
      [products[0], 'stock', '4'],
    ]);
    expect(r.body.metafields[2].type).toBe('number_integer');
    const read = await api.get(products[0]!, r.body.metafields[0].id);
    expect(read.body.metafield.value).toBe('A');
  });

  it('changes only the named values, not the others of the same owners, namespaces and keys', async () => {
    // On SQLite the write reads every value of these owners x namespaces x keys in one statement
    // (IN lists); the ones not named must come out as they were.
    const before = await api.set([
      entry(products[0]!, 'cross-a', 'a0'),
      entry(products[0]!, 'cross-b', 'b0'),
      entry(products[1]!, 'cross-a', 'a1'),
    ]);
    expect(before.status).toBe(200);
    const untouched = before.body.metafields[1];
    const r = await api.set([entry(products[0]!, 'cross-a', 'A0'), entry(products[1]!, 'cross-b', 'B1')]);
    expect(r.status).toBe(200);
    expect(r.body.metafields.map((m: { owner_id: string; key: string; value: string }) => [m.owner_id, m.key, m.value])).toEqual([
      [products[0], 'cross-a', 'A0'],
      [products[1], 'cross-b', 'B1'],
    ]);
    expect(r.body.metafields[0].id).toBe(before.body.metafields[0].id);
    const read = await api.get(products[0]!, untouched.id);
    expect(read.body.metafield).toEqual(untouched);
    expect((await api.get(products[1]!, before.body.metafields[2].id)).body.metafield).toEqual(before.body.metafields[2]);
  });

  it('answers an overwrite with the stored value as a read gives it: a time stored without an offset, an id past 2^53', async () => {
    // Read back raw inside the write: SQLite once read a time stored as DEFAULT CURRENT_TIMESTAMP
    // writes it (UTC, no offset) in the process's zone, and rounded an id past 2^53.
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      const big = 9007199254740993n;
      await t.db.prisma.$executeRawUnsafe(
        `INSERT INTO metafields (id, store_id, owner_resource, owner_id, namespace, "key", "type", "value", valid, invalid_reasons, checked_revision, created_at, updated_at)
         VALUES (${big}, ${storeId}, 'products', ${BigInt(products[1]!)}, 'bulk', 'stamped', 'single_line_text_field', 'old', true, '[]', 0, '2026-01-01 05:00:00', '2026-01-01 05:00:00')`,
      );
      const r = await api.set([entry(products[1]!, 'stamped', 'new')]);
      expect(r.status).toBe(200);
      expect(r.body.metafields[0].id).toBe(big.toString());
      const read = await api.get(products[1]!, big.toString());
      expect(read.body.metafield.value).toBe('new');
      expect(r.body.metafields[0]).toEqual(read.body.metafield);
      expect(Date.parse(read.body.metafield.created_at)).toBe(Date.parse('2026-01-01T05:00:00Z'));
      expect(Date.parse(read.body.metafield.updated_at)).toBeGreaterThan(Date.parse('2026-01-01T05:00:00Z'));
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('updates existing values by owner, namespace and key (same id)', async () => {
    const first = await api.set([entry(products[2]!, 'again', 'one')]);
    const second = await api.set([entry(products[2]!, 'again', 'two'), entry(products[2]!, 'fresh', 'new')]);
    expect(second.status).toBe(200);
    expect(second.body.metafields[0]).toMatchObject({ id: first.body.metafields[0].id, value: 'two' });
  });

  it('creates and overwrites together, leaving a stored value whose owner and key are each in the request but not as a pair (issue 17)', async () => {
    // stored: (p0, cross.b), the pair not named; (p1, cross.a), overwritten
    const stored = await api.set([entry(products[0]!, 'cross_b', 'keep'), entry(products[1]!, 'cross_a', 'old')]);
    expect(stored.status).toBe(200);
    const r = await api.set([
      entry(products[0]!, 'cross_a', 'new 0'),
      entry(products[1]!, 'cross_a', 'new 1'),
      entry(products[1]!, 'cross_b', 'new 2'),
    ]);
    expect(r.status).toBe(200);
    expect(r.body.metafields.map((m: { owner_id: unknown; key: string; value: string }) => [String(m.owner_id), m.key, m.value])).toEqual([
      [products[0], 'cross_a', 'new 0'],
      [products[1], 'cross_a', 'new 1'],
      [products[1], 'cross_b', 'new 2'],
    ]);
    expect(r.body.metafields[1].id).toBe(stored.body.metafields[1].id);
    const untouched = await t.db.prisma.metafield.findFirstOrThrow({ where: { storeId, ownerId: BigInt(products[0]!), key: 'cross_b' } });
    expect(untouched.value).toBe('keep');
  });

  it("accepts owner_id as the product's global id too", async () => {
    const r = await api.set([{ ...entry(products[1]!, 'gid_owner', 'y'), owner_id: `gid://platform/Product/${products[1]}` }]);
    expect(r.status).toBe(200);
    expect(r.body.metafields.map((m: { owner_id: string }) => m.owner_id)).toEqual([products[1]]);
  });

  it('refuses owner_id as a JSON number: 1.0000000000000001 is not product 1 (issue 8 finding 6)', async () => {
    const before = await count();
    for (const raw of [Number(products[0]), '1.0000000000000001', '1e0', '1.0']) {
      const body = JSON.stringify({ metafields: [entry(products[0]!, 'numeric_owner', 'x')] }).replace(
        `"owner_id":"${products[0]}"`,
        `"owner_id":${raw}`,
      );
      const r = await api.setRaw(body);
      expect(r.status, String(raw)).toBe(422);
      expect(r.body.errors).toContain('metafields[0].owner_id: must be a product id (a decimal string)');
    }
    expect(await count()).toBe(before);
  });

  it('accepts 25 entries', async () => {
    const r = await api.set(Array.from({ length: 25 }, (_, i) => entry(products[1]!, `many_${i}`, `v${i}`)));
    expect(r.status).toBe(200);
    expect(r.body.metafields).toHaveLength(25);
  });

  it('422 for 26 entries or none, nothing written', async () => {
    const before = await count();
    const tooMany = await api.set(Array.from({ length: 26 }, (_, i) => entry(products[1]!, `over_${i}`, 'v')));
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors).toBe('metafields: must hold at most 25 entries');
    const none = await api.set([]);
    expect(none.status).toBe(422);
    expect(none.body.errors).toBe('metafields: must hold at least 1 entry');
    const missing = await api.admin('/metafields_set.json', { method: 'POST', body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toBe("metafields: can't be blank");
    const notArray = await api.admin('/metafields_set.json', { method: 'POST', body: { metafields: { a: 1 } } });
    expect(notArray.status).toBe(422);
    expect(await count()).toBe(before);
  });

  it('all or nothing: one bad entry fails the request naming its index and field, and nothing is written', async () => {
    const before = await count();
    const r = await api.set([
      entry(products[0]!, 'atomic_a', 'fine'),
      entry(products[1]!, 'atomic_b', 'fine'),
      entry(products[2]!, 'atomic_c', 'fine'),
      { owner_resource: 'products', owner_id: products[0], namespace: 'bulk', key: 'stock', value: '-1' },
    ]);
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe('metafields[3].value: has a minimum of 0 (rule min)');
    expect(await count()).toBe(before);
    expect((await api.list(products[0]!, '?key=atomic_a')).body.metafields).toEqual([]);
  });

  it('an update inside a failing request is rolled back too', async () => {
    const stored = await api.set([entry(products[0]!, 'rollback', 'kept')]);
    const r = await api.set([entry(products[0]!, 'rollback', 'changed'), entry(products[0]!, 'broken', 'two\nlines')]);
    expect(r.status).toBe(422);
    expect((await api.get(products[0]!, stored.body.metafields[0].id)).body.metafield.value).toBe('kept');
  });

  it('reports the problems of every entry at once, in entry order', async () => {
    const r = await api.set([
      { ...entry(products[0]!, 'okay', 'x') },
      { owner_resource: 'products', owner_id: products[0], namespace: 'bulk', key: 'stock', value: 'many' },
      { ...entry(products[0]!, 'untyped', 'x'), type: undefined },
      { ...entry('999999', 'nowhere', 'x') },
      { ...entry(products[0]!, 'k', 'x') },
      { ...entry(products[0]!, 'x', 'y'), owner_resource: 'orders' },
    ]);
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe(
      [
        'metafields[1].value: must be an integer (digits with an optional leading -, no leading zeros)',
        "metafields[2].type: can't be blank (a value without a definition must name its type)",
        'metafields[3].owner_id: product 999999 does not exist',
        'metafields[4].key: is too short (minimum is 3 characters)',
        'metafields[5].owner_resource: must be products (only products can hold metafield values)',
      ].join('; '),
    );
  });

  it('only products hold values (decisions §8.1): other owner resources are 422', async () => {
    for (const owner of ['variants', 'collections', 'customers', 'orders', 'shop', 'planets']) {
      const r = await api.set([{ ...entry(products[0]!, 'owned', 'x'), owner_resource: owner }]);
      expect(r.status, owner).toBe(422);
      expect(r.body.errors).toBe('metafields[0].owner_resource: must be products (only products can hold metafield values)');
    }
  });

  it("422 for another store's product, a malformed owner_id, or the same value twice", async () => {
    const foreign = await api.set([entry(foreignProduct, 'foreign', 'x')]);
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors).toBe(`metafields[0].owner_id: product ${foreignProduct} does not exist`);
    const malformed = await api.set([{ ...entry(products[0]!, 'bad_owner', 'x'), owner_id: 'abc' }]);
    expect(malformed.body.errors).toBe('metafields[0].owner_id: must be a product id (a decimal string)');
    const wrongType = await api.set([{ ...entry(products[0]!, 'bad_owner', 'x'), owner_id: true }]);
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.errors).toBe('metafields[0].owner_id: must be a product id (a decimal string)');
    const twice = await api.set([entry(products[0]!, 'twice', 'a'), entry(products[0]!, 'twice', 'b')]);
    expect(twice.status).toBe(422);
    expect(twice.body.errors).toBe('metafields[1]: has the same owner, namespace and key as metafields[0]');
  });

  it("422 in the service's words, naming the field, for an entry or a body of the wrong JSON type (decisions §4)", async () => {
    const cases: [unknown, string][] = [
      [{ metafields: [null] }, 'metafields[0]: must be an object'],
      [{ metafields: [entry(products[0]!, 'shaped', 'x'), 'x'] }, 'metafields[1]: must be an object'],
      [{ metafields: null }, 'metafields: must be an array'],
      [{}, "metafields: can't be blank"],
      [[], 'body: must be an object'],
    ];
    for (const [body, errors] of cases) {
      const r = await api.admin('/metafields_set.json', { method: 'POST', body });
      expect([r.status, r.body.errors], JSON.stringify(body)).toEqual([422, errors]);
    }
  });

  it('422 naming the entry for a wrong JSON type in an entry', async () => {
    const r = await api.set([entry(products[0]!, 'typed', 'x'), { ...entry(products[0]!, 'typed2', 'x'), value: 12 }]);
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe('metafields[1].value: must be a string');
  });

  it('takes the empty-value rule of the version (decisions §2.6)', async () => {
    const r = await api.set([entry(products[0]!, 'blank', '')]);
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe("metafields[0].value: can't be blank");
  });
});
