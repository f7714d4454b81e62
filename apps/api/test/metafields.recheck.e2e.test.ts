import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, operator, startPlatform, type TestPlatform } from './harness';
import { adminAt, apiOf, eventually, PLATFORM_ENV, storeValues, storeWithProducts, VALUE_FIELDS, type Api } from './metafields.helpers';

// decisions §8.12, spec rule 7: after validations change, existing values are re-checked in the
// background; each value records valid and its reasons, shown in the operator API. Here the worker
// polls as in production (every 50 ms); metafields.recheck-jobs covers claims, leases and restarts.

const HANDLE = 'values-recheck';
let t: TestPlatform;
let api: Api;
let token: string;
let products: string[];

type Listed = { id: string; value: string; valid: boolean; invalid_reasons: string[]; updated_at: string; definition_id: string | null };

beforeAll(async () => {
  t = await startPlatform({ ...PLATFORM_ENV, PLATFORM_METAFIELD_RECHECK_INTERVAL_MS: '50' });
  const s = await storeWithProducts(t, HANDLE, 3);
  api = s.api;
  token = s.token;
  products = s.productIds;
});
afterAll(async () => t?.close());

async function listed(query = ''): Promise<Listed[]> {
  const r = await storeValues(t, HANDLE, query);
  expect(r.status).toBe(200);
  return r.body.metafields as Listed[];
}

const byId = (rows: Listed[], id: string) => rows.find((m) => m.id === id);

describe('background re-check end to end (decisions §8.12, spec rule 7)', () => {
  it('tightened rules mark existing values invalid with reasons; loosened rules make them valid again', async () => {
    const def = await api.define({
      namespace: 'recheck',
      key: 'stock',
      type: 'number_integer',
      validations: [{ name: 'max', value: '100' }],
    });
    const written = await api.set(
      products.flatMap((p, i) => [
        { owner_resource: 'products', owner_id: p, namespace: 'recheck', key: 'stock', value: String(10 + i) },
        { owner_resource: 'products', owner_id: p, namespace: 'recheck', key: 'other', type: 'number_integer', value: '99' },
      ]),
    );
    expect(written.status).toBe(200);
    const stock = (await listed('?limit=1000')).filter((m) => m.definition_id === def.id);
    expect(stock).toHaveLength(3);
    expect(stock.every((m) => m.valid && m.invalid_reasons.length === 0)).toBe(true);
    const [v10, v11, v12] = stock.map((m) => m.id) as [string, string, string];

    await operator(t).advanceClock(60);
    await api.redefine({ namespace: 'recheck', key: 'stock', validations: [{ name: 'max', value: '10' }] });

    const invalid = await eventually(
      async () => {
        const rows = await listed('?valid=false');
        return rows.length === 2 ? rows : undefined;
      },
      15_000,
      'two invalid values',
    );
    expect(invalid.map((m) => m.id)).toEqual([v11, v12]);
    expect(byId(invalid, v11)).toMatchObject({ value: '11', valid: false, invalid_reasons: ['value: has a maximum of 10 (rule max)'] });
    // The re-check judges; it does not change the value, so updated_at stays.
    expect(byId(invalid, v11)!.updated_at).toBe(byId(stock, v11)!.updated_at);

    const valid = await listed('?valid=true&limit=1000');
    expect(valid.map((m) => m.id)).toContain(v10);
    expect(valid.map((m) => m.id)).not.toContain(v11);
    expect(byId(valid, v10)).toMatchObject({ valid: true, invalid_reasons: [] });
    const everything = await listed('?limit=1000');
    expect(everything).toHaveLength(6);

    // The Admin API still serves invalid values as they are (the verdict is for the merchant).
    expect((await api.get(products[1]!, v11)).body.metafield.value).toBe('11');

    await api.redefine({ namespace: 'recheck', key: 'stock', validations: [{ name: 'max', value: '1000' }] });
    await eventually(async () => ((await listed('?valid=false')).length === 0 ? true : undefined), 15_000, 'values valid again');
    expect(byId(await listed('?limit=1000'), v11)).toMatchObject({ valid: true, invalid_reasons: [] });
  });

  it('values written after the change are checked at write time: valid, or refused', async () => {
    await api.define({ namespace: 'recheck', key: 'label', type: 'single_line_text_field', validations: [{ name: 'max', value: '20' }] });
    await api.create(products[0]!, { namespace: 'recheck', key: 'label', value: 'a rather long label' });
    await api.redefine({ namespace: 'recheck', key: 'label', validations: [{ name: 'max', value: '5' }] });
    const fresh = await api.create(products[1]!, { namespace: 'recheck', key: 'label', value: 'short' });
    expect(fresh.status).toBe(201);
    expect((await api.create(products[2]!, { namespace: 'recheck', key: 'label', value: 'too long' })).body.errors).toBe(
      'value: has a maximum length of 5 (rule max)',
    );
    const invalid = await eventually(async () => {
      const rows = (await listed('?valid=false')).filter((m) => m.value === 'a rather long label');
      return rows.length === 1 ? rows : undefined;
    });
    expect(invalid[0]!.invalid_reasons).toEqual(['value: has a maximum length of 5 (rule max)']);
    expect(byId(await listed('?valid=true&limit=1000'), fresh.body.metafield.id)).toMatchObject({ valid: true });
  });

  it("an empty value written before v20260901 stays valid: emptiness is the writing version's rule, not the definition's (decisions §2.6)", async () => {
    await api.define({ namespace: 'recheck', key: 'blurb', type: 'single_line_text_field', validations: [{ name: 'max', value: '20' }] });
    const long = await api.create(products[0]!, { namespace: 'recheck', key: 'blurb', value: 'fifteen chars!!' });
    expect(long.status).toBe(201);
    const empty = await apiOf(adminAt(t, token, 'v20260601')).create(products[1]!, { namespace: 'recheck', key: 'blurb', value: '' });
    expect(empty.status, empty.text).toBe(201);
    await api.redefine({ namespace: 'recheck', key: 'blurb', validations: [{ name: 'max', value: '10' }] });
    const invalid = await eventually(
      async () => byId(await listed('?valid=false'), long.body.metafield.id),
      15_000,
      'the long value marked invalid',
    );
    expect(invalid.invalid_reasons).toEqual(['value: has a maximum length of 10 (rule max)']);
    const all = await listed('?limit=1000');
    expect(byId(all, empty.body.metafield.id)).toMatchObject({ value: '', valid: true, invalid_reasons: [] });
    expect(byId(await listed('?valid=false'), empty.body.metafield.id)).toBeUndefined();
    // The job finishes: no value of the definition is left unjudged.
    await eventually(
      async () => ((await t.db.prisma.metafieldRecheck.count({ where: { status: 'pending' } })) === 0 ? true : undefined),
      15_000,
      'the job to finish',
    );
  });

  it('list values: element rules and list rules give reasons per element', async () => {
    await api.define({ namespace: 'recheck', key: 'tags', type: 'list.single_line_text_field' });
    const r = await api.create(products[0]!, { namespace: 'recheck', key: 'tags', value: '["a","bb","ccc"]' });
    await api.redefine({
      namespace: 'recheck',
      key: 'tags',
      validations: [
        { name: 'list.max', value: '2' },
        { name: 'max', value: '2' },
      ],
    });
    const row = await eventually(async () => byId(await listed('?valid=false'), r.body.metafield.id));
    expect(row.invalid_reasons).toEqual([
      'value: has a maximum of 2 elements (rule list.max)',
      'value[2]: has a maximum length of 2 (rule max)',
    ]);
  });

  it('a value written before its definition existed is judged by it (its type too)', async () => {
    const early = await api.create(products[0]!, { namespace: 'recheck', key: 'early', type: 'single_line_text_field', value: 'abc' });
    await api.define({ namespace: 'recheck', key: 'early', type: 'number_integer' });
    const row = await eventually(async () => byId(await listed('?valid=false'), early.body.metafield.id));
    expect(row.invalid_reasons).toEqual(['value: must be an integer (digits with an optional leading -, no leading zeros)']);
  });

  it('a deleted definition leaves its values without rules: valid', async () => {
    const def = await api.define({ namespace: 'recheck', key: 'gone', type: 'number_integer' });
    const v = await api.create(products[0]!, { namespace: 'recheck', key: 'gone', value: '50' });
    await api.redefine({ namespace: 'recheck', key: 'gone', validations: [{ name: 'max', value: '1' }] });
    await eventually(async () => byId(await listed('?valid=false'), v.body.metafield.id));
    const removed = await api.admin(`/metafield_definition.json?id=${def.id}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    const row = byId(await listed('?limit=1000'), v.body.metafield.id);
    expect(row).toMatchObject({ valid: true, invalid_reasons: [], definition_id: null });
    expect(byId(await listed('?valid=false'), v.body.metafield.id)).toBeUndefined();
  });
});

describe('re-check and writes at the same time', () => {
  it('a value rewritten while its batch is judged keeps the verdict of its new content; no request fails', async () => {
    const handle = 'values-race';
    const s = await storeWithProducts(t, handle, 60);
    await s.api.define({ namespace: 'race', key: 'num', type: 'number_integer', validations: [{ name: 'max', value: '100' }] });
    for (let i = 0; i < 60; i += 25) {
      const chunk = s.productIds
        .slice(i, i + 25)
        .map((p, j) => ({ owner_resource: 'products', owner_id: p, namespace: 'race', key: 'num', value: String(i + j + 1) }));
      expect((await s.api.set(chunk)).status).toBe(200);
    }
    await s.api.redefine({ namespace: 'race', key: 'num', validations: [{ name: 'max', value: '30' }] });
    // Rewrites in reverse id order, racing the worker's ascending batches.
    const rewrites = s.productIds
      .slice(30)
      .reverse()
      .map((p) => s.api.set([{ owner_resource: 'products', owner_id: p, namespace: 'race', key: 'num', value: '7' }]));
    const statuses = (await Promise.all(rewrites)).map((r) => r.status);
    expect(new Set(statuses)).toEqual(new Set([200]));
    const rows = await eventually(
      async () => {
        const all = (await storeValues(t, handle, '?limit=1000')).body.metafields as Listed[];
        const jobs = await t.db.prisma.metafieldRecheck.count({ where: { storeId: BigInt(s.store.id), status: 'pending' } });
        return jobs === 0 ? all : undefined;
      },
      20_000,
      'the re-check to finish',
    );
    expect(rows).toHaveLength(60);
    expect(rows.filter((m) => !m.valid)).toEqual([]);
    expect(rows.every((m) => Number(m.value) <= 30)).toBe(true);
  });
});

describe('GET /platform/v1/stores/{handle}/metafields (decisions §10)', () => {
  it('pages by since_id with a link rel="next" while more exist', async () => {
    const all = await listed('?limit=1000');
    expect(all.length).toBeGreaterThan(3);
    const first = await storeValues(t, HANDLE, '?limit=2');
    expect(first.body.metafields.map((m: Listed) => m.id)).toEqual(all.slice(0, 2).map((m) => m.id));
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    const second = await operator(t).call(next!.replace(`${t.origin}/platform/v1`, ''));
    expect(second.body.metafields.map((m: Listed) => m.id)).toEqual(all.slice(2, 4).map((m) => m.id));
    const last = await storeValues(t, HANDLE, `?limit=1000&since_id=${all[all.length - 2]!.id}`);
    expect(last.body.metafields.map((m: Listed) => m.id)).toEqual([all[all.length - 1]!.id]);
    expect(last.headers.get('link')).toBeNull();
  });

  it('answers each value with the Admin API fields plus definition_id, valid and invalid_reasons', async () => {
    const [row] = await listed('?limit=1');
    expect(Object.keys(row!).sort()).toEqual([...VALUE_FIELDS, 'definition_id', 'invalid_reasons', 'valid'].sort());
  });

  it('400 for a bad valid, limit or since_id; 404 for an unknown store; 401 without the operator token', async () => {
    for (const query of ['?valid=maybe', '?limit=0', '?limit=abc', '?since_id=-1']) {
      expect((await storeValues(t, HANDLE, query)).status, query).toBe(400);
    }
    expect((await storeValues(t, 'no-such-store')).status).toBe(404);
    expect((await call(`${t.origin}/platform/v1/stores/${HANDLE}/metafields`)).status).toBe(401);
  });
});
