import { ZMetafieldDefinition } from '@platform/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, operator, storeWithApp, VERSION, type TestPlatform } from './harness';
import {
  aDefinition,
  definitionsOf,
  insertValue,
  METAFIELD_SCOPES,
  startDefinitionsStore,
  rechecksOf,
  type Definitions,
} from './metafield-definitions.fixtures';

let t: TestPlatform;
let defs: Definitions;
let storeId: string;
let token: string;
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/;

beforeAll(async () => {
  let shop: Awaited<ReturnType<typeof startDefinitionsStore>>['shop'];
  ({ t, shop, defs } = await startDefinitionsStore('definitions'));
  storeId = shop.store.id;
  token = shop.token;
});
afterAll(() => t.close());

async function created(overrides: Record<string, unknown> = {}) {
  const r = await defs.create(aDefinition(overrides));
  expect(r.status, r.text).toBe(201);
  return r.body.definition;
}

describe('create: POST /metafield_definition.json (spec "Metafield definition operations", decisions §8.3-§8.4)', () => {
  it('201s with the whole definition object of the spec', async () => {
    const body = aDefinition({ key: 'fabric', name: 'Fabric', description: 'What it is made of' });
    const r = await defs.create(body);
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const d = r.body.definition;
    expect(ZMetafieldDefinition.strict().parse(d)).toEqual(d);
    expect(d).toEqual({
      id: expect.stringMatching(/^\d+$/),
      owner_resource: 'products',
      namespace: 'custom',
      key: 'fabric',
      name: 'Fabric',
      description: 'What it is made of',
      type: 'single_line_text_field',
      validations: [],
      access: null,
      created_at: expect.stringMatching(ISO_UTC),
      updated_at: d.created_at,
    });
  });

  it('echoes validations and access, and answers null description when none was given', async () => {
    const d = await created({
      type: 'number_integer',
      validations: [
        { name: 'min', value: '1' },
        { name: 'max', value: '10' },
      ],
      access: { admin: 'PUBLIC_READ' },
    });
    expect(d.validations).toEqual([
      { name: 'min', value: '1' },
      { name: 'max', value: '10' },
    ]);
    expect(d.access).toEqual({ admin: 'PUBLIC_READ' });
    expect(d.description).toBeNull();
  });

  it('renders times in the store time zone (decisions §3.3)', async () => {
    await operator(t).createStore('tokyo-defs', { iana_timezone: 'Asia/Tokyo' });
    const app = await operator(t).createPrivateApp('tokyo-defs', METAFIELD_SCOPES);
    const r = await call(`${t.origin}/admin/openapi/${VERSION}/metafield_definition.json`, {
      token: app.access_token,
      body: { definition: aDefinition() },
    });
    expect(r.status).toBe(201);
    expect(r.body.definition.created_at).toMatch(/\+09:00$/);
  });

  it('422s a second definition with the same owner_resource, namespace and key (decisions §8.3)', async () => {
    const d = await created({ key: 'unique_one' });
    const again = await defs.create(aDefinition({ key: 'unique_one', name: 'Other name', type: 'boolean' }));
    expect(again.status).toBe(422);
    expect(again.body.errors).toMatch(/^key: has already been taken/);
    const rows = await t.db.prisma.metafieldDefinition.findMany({ where: { key: 'unique_one' } });
    expect(rows.map((row) => row.id.toString())).toEqual([d.id]);
  });

  it('allows the same key in another namespace, another owner_resource or another store', async () => {
    await created({ key: 'shared_key' });
    await created({ key: 'shared_key', namespace: 'other_ns' });
    await created({ key: 'shared_key', owner_resource: 'orders' });
    const other = await storeWithApp(t, 'definitions-two', METAFIELD_SCOPES);
    expect((await definitionsOf(other.admin).create(aDefinition({ key: 'shared_key' }))).status).toBe(201);
  });

  it('keeps the uniqueness under concurrent identical creates: exactly one 201 (decisions §8.3)', async () => {
    const body = aDefinition({ key: 'raced' });
    const answers = await Promise.all(Array.from({ length: 8 }, () => defs.create(body)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 422, 422, 422, 422, 422, 422, 422]);
    for (const a of answers.filter((x) => x.status === 422)) expect(a.body.errors).toMatch(/key: has already been taken/);
    expect(await t.db.prisma.metafieldDefinition.count({ where: { key: 'raced' } })).toBe(1);
  });

  it('422s a body without a definition object', async () => {
    for (const body of [{}, { definition: null }, { definition: 'x' }, { definition: [] }, { products: {} }]) {
      const r = await call(`${t.origin}/admin/openapi/${VERSION}/metafield_definition.json`, { token, body });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.errors).toMatch(/^definition: /);
    }
  });

  it('400s malformed JSON and a body that is not JSON, on create and update (decisions §3.1)', async () => {
    const url = `${t.origin}/admin/openapi/${VERSION}/metafield_definition.json`;
    const malformed = await call(url, {
      method: 'POST',
      token,
      rawBody: '{"definition":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    const text = await call(url, { method: 'POST', token, rawBody: 'definition', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(400);
    const put = await call(url, { method: 'PUT', token, rawBody: '{"definition":{', headers: { 'content-type': 'application/json' } });
    expect(put.status).toBe(400);
  });
});

describe('authentication, scopes and store state (decisions §4, §5.5, §5.6)', () => {
  const url = (path: string) => `${t.origin}/admin/openapi/${VERSION}${path}`;

  it('401s every route without a token', async () => {
    for (const [method, path] of [
      ['POST', '/metafield_definition.json'],
      ['GET', '/metafield_definition.json?id=1'],
      ['PUT', '/metafield_definition.json'],
      ['DELETE', '/metafield_definition.json?id=1'],
      ['GET', '/metafield_definitions.json'],
    ] as const) {
      const r = await call(url(path), { method, ...(method === 'POST' || method === 'PUT' ? { body: { definition: {} } } : {}) });
      expect(r.status, `${method} ${path}`).toBe(401);
    }
  });

  it('403s writes for a token with read_metafields only, naming write_metafields; reads pass', async () => {
    const d = await created();
    const reader = await operator(t).createPrivateApp('definitions', ['read_metafields']);
    const r = definitionsOf((path, init = {}) => call(url(path), { token: reader.access_token, ...init }));
    for (const answer of [await r.create(aDefinition()), await r.update({ ...d, name: 'x' }), await r.remove(d.id)]) {
      expect(answer.status).toBe(403);
      expect(answer.body.errors).toMatch(/write_metafields/);
    }
    expect((await r.get(d.id)).status).toBe(200);
    expect((await r.list()).status).toBe(200);
  });

  it('403s reads for a token without metafield scopes, naming read_metafields', async () => {
    const app = await operator(t).createPrivateApp('definitions', ['read_products']);
    const r = definitionsOf((path, init = {}) => call(url(path), { token: app.access_token, ...init }));
    for (const answer of [await r.get('1'), await r.list()]) {
      expect(answer.status).toBe(403);
      expect(answer.body.errors).toMatch(/read_metafields/);
    }
  });

  it('lets write_metafields read too (a write scope implies its read scope, decisions §5.5)', async () => {
    const app = await operator(t).createPrivateApp('definitions', ['write_metafields']);
    const r = definitionsOf((path, init = {}) => call(url(path), { token: app.access_token, ...init }));
    const d = (await r.create(aDefinition())).body.definition;
    expect((await r.get(d.id)).status).toBe(200);
  });

  it('402s a frozen store and 423s a closed one (decisions §5.6)', async () => {
    const s = await storeWithApp(t, 'definitions-state', METAFIELD_SCOPES);
    const r = definitionsOf(s.admin);
    const patch = (status: string) => operator(t).call('/stores/definitions-state', { method: 'PATCH', body: { store: { status } } });
    await patch('frozen');
    expect((await r.create(aDefinition())).status).toBe(402);
    await patch('closed');
    expect((await r.list()).status).toBe(423);
    await patch('active');
    expect((await r.create(aDefinition())).status).toBe(201);
  });
});

describe('get: GET /metafield_definition.json?id= (decisions §8.4)', () => {
  it('200s the same object create answered', async () => {
    const d = await created({ description: 'desc', validations: [{ name: 'regex', value: '^[a-z]+$' }] });
    const r = await defs.get(d.id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ definition: d });
  });

  it.each([
    ['missing', ''],
    ['empty', '?id='],
    ['not decimal', '?id=abc'],
    ['negative', '?id=-1'],
    ['a global id', '?id=gid://platform/MetafieldDefinition/1'],
  ])('400s an id that is %s, naming id', async (_label, query) => {
    const r = await call(`${t.origin}/admin/openapi/${VERSION}/metafield_definition.json${query}`, { token: token });
    expect(r.status).toBe(400);
    expect(r.body.errors).toMatch(/^id: /);
  });

  it("404s an unknown id, an id beyond 64 bits and another store's definition", async () => {
    expect((await defs.get('999999999')).status).toBe(404);
    expect((await defs.get('99999999999999999999999')).status).toBe(404);
    const other = await storeWithApp(t, 'definitions-three', METAFIELD_SCOPES);
    const foreign = (await definitionsOf(other.admin).create(aDefinition())).body.definition;
    const r = await defs.get(foreign.id);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ errors: 'Not Found' });
  });
});

describe('delete: DELETE /metafield_definition.json?id= (decisions §8.4)', () => {
  it('200s {} and the definition is gone; a second delete is a 404', async () => {
    const d = await created();
    const r = await defs.remove(d.id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect((await defs.get(d.id)).status).toBe(404);
    expect((await defs.remove(d.id)).status).toBe(404);
  });

  it('keeps the values, now without a definition (no rules, so no invalid verdict either)', async () => {
    const d = await created({ key: 'kept_values' });
    const other = await created({ key: 'untouched' });
    const v1 = await insertValue(t, storeId, { namespace: 'custom', key: 'kept_values', definitionId: d.id, ownerId: 1 });
    const v2 = await insertValue(t, storeId, { namespace: 'custom', key: 'kept_values', definitionId: d.id, ownerId: 2, valid: false });
    const v3 = await insertValue(t, storeId, { namespace: 'custom', key: 'untouched', definitionId: other.id, valid: false });
    expect((await defs.remove(d.id)).status).toBe(200);
    const rows = await t.db.prisma.metafield.findMany({ where: { id: { in: [v1.id, v2.id] } }, orderBy: { id: 'asc' } });
    expect(rows.map((row) => [row.value, row.definitionId, row.valid, row.invalidReasons])).toEqual([
      ['hello', null, true, '[]'],
      ['hello', null, true, '[]'],
    ]);
    const untouched = await t.db.prisma.metafield.findUniqueOrThrow({ where: { id: v3.id } });
    expect([untouched.definitionId?.toString(), untouched.valid]).toEqual([other.id, false]);
  });

  it('deletes the values too with delete_all_associated_metafields=true, and only those', async () => {
    const d = await created({ key: 'dropped_values' });
    const other = await created({ key: 'other_values' });
    const gone = await insertValue(t, storeId, { namespace: 'custom', key: 'dropped_values', definitionId: d.id });
    const stays = await insertValue(t, storeId, { namespace: 'custom', key: 'other_values', definitionId: other.id });
    const r = await defs.remove(d.id, '&delete_all_associated_metafields=true');
    expect(r.status).toBe(200);
    expect(await t.db.prisma.metafield.findUnique({ where: { id: gone.id } })).toBeNull();
    expect(await t.db.prisma.metafield.findUnique({ where: { id: stays.id } })).not.toBeNull();
  });

  it('keeps the values with delete_all_associated_metafields=false', async () => {
    const d = await created({ key: 'explicit_false' });
    const v = await insertValue(t, storeId, { namespace: 'custom', key: 'explicit_false', definitionId: d.id });
    expect((await defs.remove(d.id, '&delete_all_associated_metafields=false')).status).toBe(200);
    expect((await t.db.prisma.metafield.findUniqueOrThrow({ where: { id: v.id } })).definitionId).toBeNull();
  });

  it('400s a delete_all_associated_metafields that is neither true nor false, and deletes nothing', async () => {
    const d = await created();
    const r = await defs.remove(d.id, '&delete_all_associated_metafields=yes');
    expect(r.status).toBe(400);
    expect(r.body.errors).toMatch(/^delete_all_associated_metafields: /);
    expect((await defs.get(d.id)).status).toBe(200);
  });

  it('400s a missing or malformed id, 404s an unknown one', async () => {
    const url = `${t.origin}/admin/openapi/${VERSION}/metafield_definition.json`;
    expect((await call(url, { method: 'DELETE', token: token })).status).toBe(400);
    expect((await call(`${url}?id=x1`, { method: 'DELETE', token: token })).status).toBe(400);
    expect((await defs.remove('424242424')).status).toBe(404);
  });

  it('closes the pending re-checks of the deleted definition', async () => {
    const d = await created({ key: 'recheck_then_delete', type: 'number_integer' });
    await defs.update({
      owner_resource: 'products',
      namespace: 'custom',
      key: 'recheck_then_delete',
      validations: [{ name: 'max', value: '3' }],
    });
    expect((await rechecksOf(t, d.id)).map((r) => r.status)).toEqual(['pending']);
    await defs.remove(d.id);
    expect((await rechecksOf(t, d.id)).map((r) => r.status)).toEqual(['done']);
  });
});

describe('values written before their definition', () => {
  it('belong to the definition once it is created, and are queued for a check against it (decisions §8.12)', async () => {
    const orphan = await insertValue(t, storeId, { namespace: 'custom', key: 'late_definition', value: 'abc' });
    const elsewhere = await insertValue(t, storeId, { namespace: 'custom', key: 'late_other', value: 'abc' });
    const d = await created({ key: 'late_definition' });
    const row = await t.db.prisma.metafield.findUniqueOrThrow({ where: { id: orphan.id } });
    expect(row.definitionId?.toString()).toBe(d.id);
    expect(row.checkedRevision).toBe(-1);
    expect((await rechecksOf(t, d.id)).map((r) => [r.revision, r.status])).toEqual([[0, 'pending']]);
    expect((await t.db.prisma.metafield.findUniqueOrThrow({ where: { id: elsewhere.id } })).definitionId).toBeNull();
  });

  it('queues no re-check when there is nothing to check', async () => {
    const d = await created();
    expect(await rechecksOf(t, d.id)).toEqual([]);
  });
});
