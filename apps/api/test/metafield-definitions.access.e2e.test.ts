import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type TestPlatform } from './harness';
import { aDefinition, merchantView, startDefinitionsPlatform, storeWithTwoApps, type AppHandle } from './metafield-definitions.fixtures';

// The spec's "Access permission values" table and decisions §8.2, §8.7: the creating app (a), another
// app of the same store (b), and the merchant admin (the operator API's merchant view, decisions §10).

let t: TestPlatform;
let a: AppHandle;
let b: AppHandle;
const HANDLE = 'access';

beforeAll(async () => {
  t = await startDefinitionsPlatform();
  ({ a, b } = await storeWithTwoApps(t, HANDLE));
});
afterAll(() => t.close());

async function createdBy(app: AppHandle, overrides: Record<string, unknown> = {}) {
  const r = await app.defs.create(aDefinition({ namespace: 'shared', ...overrides }));
  expect(r.status, r.text).toBe(201);
  const d = r.body.definition;
  return { d, target: { owner_resource: d.owner_resource, namespace: d.namespace, key: d.key } };
}

const listedIds = async (app: AppHandle, query = '') =>
  ((await app.defs.list(`?limit=1000${query}`)).body.metafield_definitions as { id: string }[]).map((d) => d.id);
const merchantIds = async () =>
  ((await merchantView(t, HANDLE, '?limit=1000')).body.metafield_definitions as { id: string }[]).map((d) => d.id);

/** access.admin as sent (undefined: omitted), and what another app and the merchant may do in a shared namespace. */
const MATRIX = [
  { access: 'MERCHANT_READ_WRITE', other: 'none', merchantSees: true },
  { access: 'MERCHANT_READ', other: 'none', merchantSees: true },
  { access: 'PUBLIC_READ', other: 'read', merchantSees: true },
  { access: 'PRIVATE', other: 'none', merchantSees: false },
  { access: 'NONE', other: 'read_write', merchantSees: true },
  // decisions §8.7: omitted is stored null and behaves as NONE outside app namespaces.
  { access: undefined, other: 'read_write', merchantSees: true },
] as const;

describe('the access table, shared namespace (spec "Access permission values", decisions §8.7)', () => {
  it.each(MATRIX)('access $access: the creating app manages it (get, list, update, delete)', async ({ access }) => {
    const { d, target } = await createdBy(a, access ? { access: { admin: access } } : {});
    expect(d.access).toEqual(access ? { admin: access } : null);
    expect((await a.defs.get(d.id)).status).toBe(200);
    expect(await listedIds(a)).toContain(d.id);
    const updated = await a.defs.update({ ...target, name: 'Changed by creator', validations: [{ name: 'max', value: '9' }] });
    expect(updated.status).toBe(200);
    expect(updated.body.definition.access).toEqual(access ? { admin: access } : null);
    expect((await a.defs.remove(d.id)).status).toBe(200);
  });

  it.each(MATRIX.filter((row) => row.other === 'none'))(
    'access $access: another app can neither read nor write it: 404 on get, update and delete, absent from lists',
    async ({ access }) => {
      const { d, target } = await createdBy(a, { access: { admin: access } });
      const get = await b.defs.get(d.id);
      expect(get.status).toBe(404);
      expect(get.body).toEqual({ errors: 'Not Found' });
      expect((await b.defs.update({ ...target, name: 'Hijacked' })).status).toBe(404);
      expect((await b.defs.remove(d.id)).status).toBe(404);
      expect(await listedIds(b)).not.toContain(d.id);
      expect(await listedIds(b, `&namespace=shared&owner_resource=products`)).not.toContain(d.id);
      expect((await a.defs.get(d.id)).body.definition.name).toBe(d.name);
    },
  );

  it('access PUBLIC_READ: another app reads it (get, list) and gets 403 on update and delete', async () => {
    const { d, target } = await createdBy(a, { access: { admin: 'PUBLIC_READ' } });
    const get = await b.defs.get(d.id);
    expect(get.status).toBe(200);
    expect(get.body.definition).toEqual(d);
    expect(await listedIds(b)).toContain(d.id);
    const update = await b.defs.update({ ...target, name: 'Hijacked' });
    expect(update.status).toBe(403);
    expect(update.body.errors).toMatch(/PUBLIC_READ/);
    const remove = await b.defs.remove(d.id, '&delete_all_associated_metafields=true');
    expect(remove.status).toBe(403);
    expect((await a.defs.get(d.id)).body.definition).toEqual(d);
  });

  it.each(MATRIX.filter((row) => row.other === 'read_write'))('access $access: another app reads and writes it', async ({ access }) => {
    const { d, target } = await createdBy(a, access ? { access: { admin: access } } : {});
    expect((await b.defs.get(d.id)).status).toBe(200);
    expect(await listedIds(b)).toContain(d.id);
    const update = await b.defs.update({ ...target, description: 'Changed by another app' });
    expect(update.status).toBe(200);
    expect(update.body.definition.description).toBe('Changed by another app');
    expect((await b.defs.remove(d.id)).status).toBe(200);
    expect((await a.defs.get(d.id)).status).toBe(404);
  });

  it('follows a change of access: PRIVATE hidden, then PUBLIC_READ readable, then NONE writable', async () => {
    const { d, target } = await createdBy(a, { access: { admin: 'PRIVATE' } });
    expect((await b.defs.get(d.id)).status).toBe(404);
    await a.defs.update({ ...target, access: { admin: 'PUBLIC_READ' } });
    expect((await b.defs.get(d.id)).status).toBe(200);
    expect((await b.defs.update({ ...target, name: 'x' })).status).toBe(403);
    await a.defs.update({ ...target, access: { admin: 'NONE' } });
    expect((await b.defs.update({ ...target, name: 'x' })).status).toBe(200);
  });

  it('keeps (store, owner_resource, namespace, key) unique even when the existing definition is hidden from the caller', async () => {
    const { d } = await createdBy(a, { access: { admin: 'PRIVATE' } });
    const r = await b.defs.create({ owner_resource: 'products', namespace: 'shared', key: d.key, name: 'Mine', type: 'boolean' });
    expect(r.status).toBe(422);
  });
});

describe("the merchant admin's view: GET /platform/v1/stores/{handle}/metafield_definitions (decisions §10)", () => {
  it.each(MATRIX)('access $access: visible to the merchant: $merchantSees', async ({ access, merchantSees }) => {
    const { d } = await createdBy(a, access ? { access: { admin: access } } : {});
    const r = await merchantView(t, HANDLE, '?limit=1000');
    expect(r.status).toBe(200);
    const seen = (r.body.metafield_definitions as { id: string }[]).find((x) => x.id === d.id);
    if (merchantSees) expect(seen).toEqual(d);
    else expect(seen).toBeUndefined();
  });

  it("sees every app's definitions (except PRIVATE ones), with the Admin API's object shape", async () => {
    const fromA = await createdBy(a, { access: { admin: 'MERCHANT_READ' } });
    const fromB = await createdBy(b, { access: { admin: 'MERCHANT_READ_WRITE' } });
    const ids = await merchantIds();
    expect(ids).toEqual(expect.arrayContaining([fromA.d.id, fromB.d.id]));
    expect(ids).toEqual([...ids].sort((x, y) => Number(BigInt(x) - BigInt(y))));
  });

  it('filters by owner_resource and namespace', async () => {
    const { d } = await createdBy(a, { owner_resource: 'customers', namespace: 'loyalty' });
    const r = await merchantView(t, HANDLE, '?owner_resource=customers&namespace=loyalty');
    expect(r.body.metafield_definitions).toEqual([d]);
  });

  it('400s a bad filter, 401s without the operator token, 404s an unknown store', async () => {
    expect((await merchantView(t, HANDLE, '?owner_resource=pages')).status).toBe(400);
    expect((await merchantView(t, HANDLE, '?namespace=$app:x')).status).toBe(400);
    expect((await merchantView(t, HANDLE, '?limit=0')).status).toBe(400);
    expect((await call(`${t.origin}/platform/v1/stores/${HANDLE}/metafield_definitions`)).status).toBe(401);
    expect((await merchantView(t, 'no-such-store')).status).toBe(404);
  });
});

describe('app namespaces: $app: (decisions §8.2)', () => {
  it('stores and returns $app:x as app--{app_id}--x, which later calls use', async () => {
    const r = await a.defs.create(aDefinition({ namespace: '$app:settings', key: 'theme' }));
    expect(r.status).toBe(201);
    expect(r.body.definition.namespace).toBe(`app--${a.appId}--settings`);
    const row = await t.db.prisma.metafieldDefinition.findUniqueOrThrow({ where: { id: BigInt(r.body.definition.id) } });
    expect([row.namespace, row.appId?.toString(), row.accessAdmin]).toEqual([`app--${a.appId}--settings`, a.appId, null]);
  });

  it('lets the owning app address it by either spelling', async () => {
    const d = (await a.defs.create(aDefinition({ namespace: '$app:either' }))).body.definition;
    for (const namespace of ['$app:either', `app--${a.appId}--either`]) {
      const r = await a.defs.update({ owner_resource: 'products', namespace, key: d.key, name: `via ${namespace}` });
      expect(r.status, namespace).toBe(200);
      expect(r.body.definition.id).toBe(d.id);
      expect(await listedIds(a, `&namespace=${encodeURIComponent(namespace)}`)).toEqual([d.id]);
    }
    const dup = await a.defs.create(aDefinition({ namespace: `app--${a.appId}--either`, key: d.key }));
    expect(dup.status).toBe(422);
    const direct = await a.defs.create(aDefinition({ namespace: `app--${a.appId}--either` }));
    expect(direct.status).toBe(201);
    expect(direct.body.definition.namespace).toBe(`app--${a.appId}--either`);
  });

  it('hides it from other apps when access is omitted (behaves as MERCHANT_READ_WRITE, decisions §8.7)', async () => {
    const d = (await a.defs.create(aDefinition({ namespace: '$app:hidden' }))).body.definition;
    expect((await b.defs.get(d.id)).status).toBe(404);
    expect((await b.defs.update({ owner_resource: 'products', namespace: d.namespace, key: d.key, name: 'x' })).status).toBe(404);
    expect((await b.defs.remove(d.id)).status).toBe(404);
    expect(await listedIds(b)).not.toContain(d.id);
    expect(await listedIds(b, `&namespace=${d.namespace}`)).toEqual([]);
    // The merchant manages it (MERCHANT_READ_WRITE).
    expect(await merchantIds()).toContain(d.id);
  });

  it("refuses another app's reserved namespace on create: 403, whichever key", async () => {
    const r = await b.defs.create(aDefinition({ namespace: `app--${a.appId}--settings` }));
    expect(r.status).toBe(403);
    expect(r.body.errors).toBe(
      `namespace: app--${a.appId}--settings is reserved to another app; only that app may create, change or delete definitions and values there`,
    );
    expect(
      await t.db.prisma.metafieldDefinition.count({ where: { appId: BigInt(b.appId), namespace: { startsWith: `app--${a.appId}--` } } }),
    ).toBe(0);
  });

  it("gives each app its own $app:x: b's $app:settings is app--{b}--settings, apart from a's", async () => {
    const key = 'same_key';
    const fromA = await a.defs.create(aDefinition({ namespace: '$app:mine', key }));
    const fromB = await b.defs.create(aDefinition({ namespace: '$app:mine', key }));
    expect([fromA.status, fromB.status]).toEqual([201, 201]);
    expect(fromB.body.definition.namespace).toBe(`app--${b.appId}--mine`);
    // b's "$app:mine" names b's own definition, never a's.
    const r = await b.defs.update({ owner_resource: 'products', namespace: '$app:mine', key, name: 'B only' });
    expect(r.body.definition.id).toBe(fromB.body.definition.id);
    expect((await a.defs.get(fromA.body.definition.id)).body.definition.name).toBe(fromA.body.definition.name);
  });

  it('decisions §8.2: app--{own id}--x is $app:x, checked on x alike, so whatever create accepts stays updatable in either spelling', async () => {
    for (const namespace of ['$app:ab', `app--${a.appId}--ab`]) {
      const r = await a.defs.create(aDefinition({ namespace }));
      expect([r.status, r.body.errors], namespace).toEqual([422, 'namespace: is too short (minimum is 3 characters)']);
    }
    for (const namespace of [`$app:${'n'.repeat(256)}`, `app--${a.appId}--${'n'.repeat(256)}`]) {
      const r = await a.defs.create(aDefinition({ namespace }));
      expect([r.status, r.body.errors], 'too long').toEqual([422, 'namespace: is too long (maximum is 255 characters)']);
    }
    const long = 'n'.repeat(250);
    for (const [i, namespace] of [`$app:${long}`, `app--${a.appId}--${long}`].entries()) {
      const created = await a.defs.create(aDefinition({ namespace, key: `long_${i}` }));
      expect(created.status, created.text).toBe(201);
      expect(created.body.definition.namespace).toBe(`app--${a.appId}--${long}`);
      for (const spelling of [`app--${a.appId}--${long}`, `$app:${long}`]) {
        const updated = await a.defs.update({
          owner_resource: 'products',
          namespace: spelling,
          key: `long_${i}`,
          name: `Renamed via ${spelling.slice(0, 8)}`,
        });
        expect(updated.status, updated.text).toBe(200);
        expect(updated.body.definition.id).toBe(created.body.definition.id);
      }
    }
  });

  it('follows an explicit access inside an app namespace: PUBLIC_READ is readable by other apps, not writable', async () => {
    const d = (await a.defs.create(aDefinition({ namespace: '$app:public', access: { admin: 'PUBLIC_READ' } }))).body.definition;
    expect((await b.defs.get(d.id)).status).toBe(200);
    expect(await listedIds(b, `&namespace=${d.namespace}`)).toEqual([d.id]);
    expect((await b.defs.update({ owner_resource: 'products', namespace: d.namespace, key: d.key, name: 'x' })).status).toBe(403);
    expect((await b.defs.remove(d.id)).status).toBe(403);
  });

  it('decisions §8.2 "only that app may use it": NONE inside an app namespace lets other apps read, never update or delete (403)', async () => {
    const d = (await a.defs.create(aDefinition({ namespace: '$app:open', access: { admin: 'NONE' } }))).body.definition;
    expect((await b.defs.get(d.id)).status).toBe(200);
    expect(await listedIds(b, `&namespace=${d.namespace}`)).toEqual([d.id]);
    const r = await b.defs.update({ owner_resource: 'products', namespace: d.namespace, key: d.key, name: 'Changed by b' });
    expect(r.status).toBe(403);
    expect(r.body.errors).toBe(
      `namespace: ${d.namespace} is reserved to another app; only that app may create, change or delete definitions and values there`,
    );
    const removed = await b.defs.remove(d.id, '&delete_all_associated_metafields=true');
    expect(removed.status).toBe(403);
    expect(removed.body.errors).toBe(
      `namespace: ${d.namespace} is reserved to another app; only that app may create, change or delete definitions and values there`,
    );
    const kept = await a.defs.get(d.id);
    expect(kept.body.definition.name).toBe(d.name);
    // The owner still manages it.
    expect((await a.defs.update({ owner_resource: 'products', namespace: '$app:open', key: d.key, name: 'Changed by a' })).status).toBe(
      200,
    );
    expect((await a.defs.remove(d.id)).status).toBe(200);
  });

  it('decisions §8.2: an app namespace another app may not see stays a 404 to it on update and delete', async () => {
    const d = (await a.defs.create(aDefinition({ namespace: '$app:closed' }))).body.definition;
    expect((await b.defs.update({ owner_resource: 'products', namespace: d.namespace, key: d.key, name: 'x' })).status).toBe(404);
    expect((await b.defs.remove(d.id)).status).toBe(404);
  });

  it('hides a PRIVATE app-namespace definition from the merchant too', async () => {
    const d = (await a.defs.create(aDefinition({ namespace: '$app:secret', access: { admin: 'PRIVATE' } }))).body.definition;
    expect(await merchantIds()).not.toContain(d.id);
    expect((await a.defs.get(d.id)).status).toBe(200);
  });
});
