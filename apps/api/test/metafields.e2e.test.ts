import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, operator, startPlatform, type TestPlatform } from './harness';
import { PLATFORM_ENV, storeWithProducts, VALUE_FIELDS, type Api } from './metafields.helpers';

// decisions §8.9: the values API on products, every route and every status it answers (who may
// call it: metafields.auth.e2e.test.ts).

let t: TestPlatform;
let api: Api;
let productA: string;
let productB: string;
let foreignProduct: string;

const ISO_WITH_OFFSET = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/;

beforeAll(async () => {
  t = await startPlatform(PLATFORM_ENV);
  const s = await storeWithProducts(t, 'values-main', 2);
  api = s.api;
  [productA, productB] = s.productIds as [string, string];
  const other = await storeWithProducts(t, 'values-other', 1);
  foreignProduct = other.productIds[0]!;
});
afterAll(async () => t?.close());

const text = (key: string, value = 'red') => ({ namespace: 'custom', key, type: 'single_line_text_field', value });

describe('POST /products/{id}/metafields.json (decisions §8.9)', () => {
  it('creates a value: 201 with the whole value shape', async () => {
    const r = await api.create(productA, text('color'));
    expect(r.status).toBe(201);
    const m = r.body.metafield;
    expect(Object.keys(m).sort()).toEqual(VALUE_FIELDS);
    expect(m).toMatchObject({
      namespace: 'custom',
      key: 'color',
      value: 'red',
      type: 'single_line_text_field',
      description: null,
      owner_id: productA,
      owner_resource: 'products',
      admin_graphql_api_id: `gid://platform/Metafield/${m.id}`,
    });
    expect(m.id).toMatch(/^\d+$/);
    expect(m.created_at).toMatch(ISO_WITH_OFFSET);
    expect(m.updated_at).toMatch(ISO_WITH_OFFSET);
  });

  it('a second POST of the same namespace and key updates that value: 200, same id', async () => {
    const first = await api.create(productA, text('upserted', 'one'));
    expect(first.status).toBe(201);
    await operator(t).advanceClock(5);
    const second = await api.create(productA, text('upserted', 'two'));
    expect(second.status).toBe(200);
    expect(second.body.metafield).toMatchObject({ id: first.body.metafield.id, value: 'two' });
    expect(second.body.metafield.created_at).toBe(first.body.metafield.created_at);
    expect(second.body.metafield.updated_at).not.toBe(first.body.metafield.updated_at);
  });

  it('the same namespace and key on another product is another value', async () => {
    const a = await api.create(productA, text('per-product', 'a'));
    const b = await api.create(productB, text('per-product', 'b'));
    expect(b.status).toBe(201);
    expect(b.body.metafield.id).not.toBe(a.body.metafield.id);
    expect(b.body.metafield.owner_id).toBe(productB);
  });

  it("a definition's description comes back with its values", async () => {
    await api.define({ namespace: 'custom', key: 'described', type: 'single_line_text_field', description: 'Shown to merchants' });
    const r = await api.create(productA, { namespace: 'custom', key: 'described', value: 'x' });
    expect(r.status).toBe(201);
    expect(r.body.metafield.description).toBe('Shown to merchants');
  });

  it("404 for an unknown product, another store's product, or an id that is not a decimal", async () => {
    for (const id of ['999999', foreignProduct, 'abc', '-1', '99999999999999999999']) {
      const r = await api.create(id, text('nowhere'));
      expect(r.status, id).toBe(404);
      expect(typeof r.body.errors).toBe('string');
    }
  });

  it('422 for bodies that break the shape, naming the field (decisions §4)', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /^metafield: can't be blank$/],
      [{ metafield: null }, /^metafield: must be an object$/],
      [{ metafield: [] }, /^metafield: must be an object$/],
      ['text', /^body: must be an object$/],
      [{ metafield: { namespace: 'custom', key: 'shape', type: 'single_line_text_field' } }, /^metafield\.value: can't be blank$/],
      [{ metafield: { namespace: 'custom', key: 'shape', type: 'number_integer', value: 5 } }, /^metafield\.value: must be a string$/],
      [{ metafield: { key: 'shape', type: 'boolean', value: 'true' } }, /^metafield\.namespace: can't be blank$/],
      [{ metafield: { namespace: 'custom', type: 'boolean', value: 'true' } }, /^metafield\.key: can't be blank$/],
    ];
    for (const [body, message] of cases) {
      const r = await api.admin(`/products/${productA}/metafields.json`, { method: 'POST', body });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.errors).toMatch(message);
    }
  });

  it('422 for a namespace or key in the wrong format (decisions §8.2, spec key rule)', async () => {
    const short = await api.create(productA, { namespace: 'ab', key: 'k!', type: 'boolean', value: 'true' });
    expect(short.status).toBe(422);
    expect(short.body.errors).toBe(
      'namespace: is too short (minimum is 3 characters); key: is too short (minimum is 3 characters); key: can only contain letters, digits, hyphens and underscores',
    );
    // Every problem at once (decisions §4): an unsupported type is named beside a bad name.
    const all = await api.create(productA, { namespace: 'ab', key: 'good_key', type: 'colour', value: 'x' });
    expect(all.status).toBe(422);
    expect(all.body.errors).toBe("namespace: is too short (minimum is 3 characters); type: 'colour' is not a supported type");
  });

  it('without a definition the type is required (decisions §8.9)', async () => {
    const r = await api.create(productA, { namespace: 'custom', key: 'untyped', value: 'x' });
    expect(r.status).toBe(422);
    expect(r.body.errors).toMatch(/^type: can't be blank/);
  });

  it('a null type is an omitted one: required without a definition, the stored type kept on an update', async () => {
    const untyped = await api.create(productA, { namespace: 'custom', key: 'null_typed', type: null, value: 'x' });
    expect(untyped.status).toBe(422);
    expect(untyped.body.errors).toMatch(/^type: can't be blank/);
    const created = await api.create(productA, text('null_kept', 'blue'));
    const updated = await api.update(productA, created.body.metafield.id, { type: null, value: 'teal' });
    expect(updated.status).toBe(200);
    expect(updated.body.metafield).toMatchObject({ type: 'single_line_text_field', value: 'teal' });
  });

  it('without a definition an unsupported type is 422', async () => {
    const r = await api.create(productA, { namespace: 'custom', key: 'weird', type: 'colour', value: 'x' });
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe("type: 'colour' is not a supported type");
  });

  it('400 for malformed JSON and for a wrong Content-Type (decisions §3.1)', async () => {
    const malformed = await api.admin(`/products/${productA}/metafields.json`, {
      method: 'POST',
      rawBody: '{"metafield":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    const wrongType = await api.admin(`/products/${productA}/metafields.json`, {
      method: 'POST',
      rawBody: JSON.stringify({ metafield: text('typed') }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(wrongType.status).toBe(400);
  });

  it('413 for a body over 8 MB (decisions §3.1)', async () => {
    const r = await api.create(productA, text('huge', 'x'.repeat(8 * 1024 * 1024 + 10)));
    expect(r.status).toBe(413);
  });
});

describe('GET /products/{id}/metafields/{mid}.json', () => {
  it('reads one value: 200', async () => {
    const created = await api.create(productA, text('readable', 'blue'));
    const r = await api.get(productA, created.body.metafield.id);
    expect(r.status).toBe(200);
    expect(r.body.metafield).toEqual(created.body.metafield);
  });

  it("404 for an unknown value, another product's value, or another store's product", async () => {
    const created = await api.create(productA, text('elsewhere'));
    const id = created.body.metafield.id as string;
    expect((await api.get(productA, '999999')).status).toBe(404);
    expect((await api.get(productB, id)).status).toBe(404);
    expect((await api.get(foreignProduct, id)).status).toBe(404);
    expect((await api.get(productA, 'x1')).status).toBe(404);
  });
});

describe('PUT /products/{id}/metafields/{mid}.json', () => {
  it('changes the value: 200, updated_at moves', async () => {
    const created = await api.create(productA, text('changing', 'before'));
    await operator(t).advanceClock(3);
    const r = await api.update(productA, created.body.metafield.id, { value: 'after' });
    expect(r.status).toBe(200);
    expect(r.body.metafield).toMatchObject({ id: created.body.metafield.id, value: 'after', key: 'changing' });
    expect(r.body.metafield.updated_at).not.toBe(created.body.metafield.updated_at);
    expect((await api.get(productA, created.body.metafield.id)).body.metafield.value).toBe('after');
  });

  it('moves updated_at to a later second even when the clock has not moved (nextUpdatedAt): PUT, POST and bulk overwrites', async () => {
    const created = await api.create(productA, text('same-second', 'one'));
    const id = created.body.metafield.id as string;
    const times = [created.body.metafield.updated_at as string];
    const put = await api.update(productA, id, { value: 'two' });
    times.push(put.body.metafield.updated_at);
    const post = await api.create(productA, text('same-second', 'three'));
    expect(post.status).toBe(200);
    times.push(post.body.metafield.updated_at);
    const bulk = await api.set([
      {
        owner_resource: 'products',
        owner_id: productA,
        namespace: 'custom',
        key: 'same-second',
        type: 'single_line_text_field',
        value: 'four',
      },
    ]);
    expect(bulk.status, bulk.text).toBe(200);
    times.push(bulk.body.metafields[0].updated_at);
    for (let i = 1; i < times.length; i++) expect(Date.parse(times[i]!), `write ${i}`).toBeGreaterThan(Date.parse(times[i - 1]!));
  });

  it('gives writes of one value at once different, increasing times: PUTs, POSTs and bulk overwrites (read under the row lock; PostgreSQL in CI)', async () => {
    const created = await api.create(productA, text('at-once', 'zero'));
    const id = created.body.metafield.id as string;
    const writes = Array.from({ length: 9 }, (_, i) => {
      const value = `write ${i}`;
      if (i % 3 === 0) return api.update(productA, id, { value }).then((r) => ({ r, metafield: r.body.metafield }));
      if (i % 3 === 1) return api.create(productA, text('at-once', value)).then((r) => ({ r, metafield: r.body.metafield }));
      return api
        .set([
          { owner_resource: 'products', owner_id: productA, namespace: 'custom', key: 'at-once', type: 'single_line_text_field', value },
        ])
        .then((r) => ({ r, metafield: r.body.metafields?.[0] }));
    });
    const answers = await Promise.all(writes);
    for (const { r } of answers) expect(r.status, r.text).toBe(200);
    const times = answers.map(({ metafield }) => Date.parse(metafield.updated_at as string)).sort((a, b) => a - b);
    // The clock stands still: each write moves one second past the one before it, none repeats one.
    const first = Date.parse(created.body.metafield.updated_at as string);
    expect(times).toEqual(times.map((_, i) => first + (i + 1) * 1000));
    const stored = (await api.get(productA, id)).body.metafield;
    expect(Date.parse(stored.updated_at)).toBe(times.at(-1));
    expect(stored.value).toBe(answers.find(({ metafield }) => Date.parse(metafield.updated_at) === times.at(-1))?.metafield.value);
  });

  it('creates one value when bulk sets of the same new key arrive at once: every request 200, the others overwrite it', async () => {
    const entry = (value: string) => [
      { owner_resource: 'products', owner_id: productA, namespace: 'custom', key: 'raced', type: 'single_line_text_field', value },
    ];
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => api.set(entry(`racer ${i}`))));
    // A request that lost the race to the insert meets the unique index and is written again as an
    // overwrite (the new values are one multi-row INSERT: its refusal is read as the ORM's would be).
    for (const r of answers) expect(r.status, r.text).toBe(200);
    const ids = new Set(answers.map((r) => r.body.metafields[0].id as string));
    expect(ids.size).toBe(1);
    const stored = (await api.list(productA, '?namespace=custom&key=raced')).body.metafields as { id: string; value: string }[];
    expect(stored.map((m) => m.id)).toEqual([...ids]);
    expect(answers.map((r) => r.body.metafields[0].value)).toContain(stored[0]!.value);
  });

  it('without a definition the type may change, and the new type is checked', async () => {
    const created = await api.create(productA, text('retyped', 'hello'));
    const bad = await api.update(productA, created.body.metafield.id, { type: 'number_integer', value: 'hello' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toMatch(/^value: must be an integer/);
    const good = await api.update(productA, created.body.metafield.id, { type: 'number_integer', value: '42' });
    expect(good.status).toBe(200);
    expect(good.body.metafield).toMatchObject({ type: 'number_integer', value: '42' });
  });

  it('namespace and key identify the value: sending others is 422, the same ones are fine', async () => {
    const created = await api.create(productA, text('fixed'));
    const same = await api.update(productA, created.body.metafield.id, { namespace: 'custom', key: 'fixed', value: 'ok' });
    expect(same.status).toBe(200);
    const moved = await api.update(productA, created.body.metafield.id, { namespace: 'other', key: 'renamed', value: 'x' });
    expect(moved.status).toBe(422);
    expect(moved.body.errors).toBe('namespace: cannot be changed (it is custom); key: cannot be changed (it is fixed)');
  });

  it('422 when the value is missing, and nothing changes', async () => {
    const created = await api.create(productA, text('kept', 'original'));
    const r = await api.update(productA, created.body.metafield.id, { type: 'single_line_text_field' });
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe("metafield.value: can't be blank");
    const bad = await api.update(productA, created.body.metafield.id, { value: 'two\nlines' });
    expect(bad.status).toBe(422);
    expect((await api.get(productA, created.body.metafield.id)).body.metafield.value).toBe('original');
  });

  it('404 for an unknown value or product', async () => {
    expect((await api.update(productA, '999999', { value: 'x' })).status).toBe(404);
    expect((await api.update('999999', '1', { value: 'x' })).status).toBe(404);
  });
});

describe('DELETE /products/{id}/metafields/{mid}.json', () => {
  it('deletes: 200 {}, then 404', async () => {
    const created = await api.create(productA, text('doomed'));
    const r = await api.remove(productA, created.body.metafield.id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect((await api.get(productA, created.body.metafield.id)).status).toBe(404);
    expect((await api.remove(productA, created.body.metafield.id)).status).toBe(404);
  });
});

describe('GET /products/{id}/metafields.json (decisions §6)', () => {
  let product: string;
  let ids: string[];
  let list: Api;
  let listToken: string;
  let emptyProduct: string;
  beforeAll(async () => {
    const s = await storeWithProducts(t, 'values-list', 2);
    list = s.api;
    emptyProduct = s.productIds[1]!;
    listToken = s.token;
    product = s.productIds[0]!;
    ids = [];
    for (let i = 0; i < 5; i++) ids.push((await list.create(product, text(`key_${i}`, `v${i}`))).body.metafield.id);
    ids.push((await list.create(product, { namespace: 'other', key: 'key_x', type: 'boolean', value: 'true' })).body.metafield.id);
  });

  it("lists the product's values by ascending id, no link header for a single page", async () => {
    const r = await list.list(product);
    expect(r.status).toBe(200);
    expect(r.body.metafields.map((m: { id: string }) => m.id)).toEqual(ids);
    expect(r.headers.get('link')).toBeNull();
  });

  it('an empty list for a product without values', async () => {
    const r = await list.list(emptyProduct);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ metafields: [] });
  });

  it('pages with limit and follows next then previous links (page_info)', async () => {
    const first = await list.list(product, '?limit=2');
    expect(first.body.metafields.map((m: { id: string }) => m.id)).toEqual(ids.slice(0, 2));
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    const second = await call(next!, { token: listToken });
    expect(second.status).toBe(200);
    expect(second.body.metafields.map((m: { id: string }) => m.id)).toEqual(ids.slice(2, 4));
    const previous = /<([^>]+)>; rel="previous"/.exec(second.headers.get('link') ?? '')?.[1];
    const back = await call(previous!, { token: listToken });
    expect(back.body.metafields.map((m: { id: string }) => m.id)).toEqual(ids.slice(0, 2));
  });

  it('filters by since_id, namespace and key, and trims to fields (id always kept)', async () => {
    expect((await list.list(product, `?since_id=${ids[3]}`)).body.metafields.map((m: { id: string }) => m.id)).toEqual(ids.slice(4));
    expect((await list.list(product, '?namespace=other')).body.metafields.map((m: { id: string }) => m.id)).toEqual([ids[5]]);
    expect((await list.list(product, '?key=key_1')).body.metafields.map((m: { id: string }) => m.id)).toEqual([ids[1]]);
    const trimmed = await list.list(product, '?fields=value');
    expect(trimmed.body.metafields[0]).toEqual({ id: ids[0], value: 'v0' });
  });

  it('400 for a bad limit, since_id or page_info (decisions §6.1, §6.2)', async () => {
    for (const query of ['?limit=0', '?limit=1001', '?limit=', '?since_id=x', '?page_info=garbage']) {
      const r = await list.list(product, query);
      expect(r.status, query).toBe(400);
    }
  });

  it('400 naming a query parameter given twice (decisions §4), not zod\'s "expected string, received array"', async () => {
    const r = await list.list(product, '?limit=1&limit=2');
    expect([r.status, r.body.errors]).toEqual([400, 'limit: must be given once']);
  });

  it('404 for an unknown product', async () => {
    expect((await list.list('999999')).status).toBe(404);
  });
});
