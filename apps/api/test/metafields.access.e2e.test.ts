import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, VERSION, type TestPlatform } from './harness';
import { PLATFORM_ENV, secondApp, storeValues, storeWithProducts, type Api } from './metafields.helpers';

// The spec's "Access permission values" table applied to values (decisions §8.2, §8.7): two apps on
// one store, the creator of the definitions (A) and another app (B), plus the merchant (operator API).

const HANDLE = 'values-access';
let t: TestPlatform;
let a: Api;
let b: Api;
let appA: string;
let appB: string;
let product: string;

beforeAll(async () => {
  t = await startPlatform(PLATFORM_ENV);
  const s = await storeWithProducts(t, HANDLE, 1);
  a = s.api;
  appA = s.appId;
  product = s.productIds[0]!;
  const other = await secondApp(t, HANDLE, VERSION);
  b = other.api;
  appB = other.appId;
});
afterAll(async () => t?.close());

const ids = (r: { body: { metafields: { id: string }[] } }) => r.body.metafields.map((m) => m.id);

type Expectation = { read: boolean; write: boolean };
// What another app may do with values under a definition of each access (spec table, decisions §8.7).
const MATRIX: [string | null, Expectation][] = [
  ['MERCHANT_READ_WRITE', { read: false, write: false }],
  ['MERCHANT_READ', { read: false, write: false }],
  ['PUBLIC_READ', { read: true, write: false }],
  ['PRIVATE', { read: false, write: false }],
  ['NONE', { read: true, write: true }],
  [null, { read: true, write: true }],
];

describe.each(MATRIX)('a definition with access %s (spec "Access permission values")', (access, may) => {
  const key = `acc_${(access ?? 'unset').toLowerCase()}`;
  let id: string;

  beforeAll(async () => {
    await a.define({ namespace: 'shared', key, type: 'single_line_text_field', ...(access ? { access: { admin: access } } : {}) });
    const r = await a.create(product, { namespace: 'shared', key, value: 'by A' });
    expect(r.status).toBe(201);
    id = r.body.metafield.id;
  });

  it(`the creating app reads and writes its values`, async () => {
    expect((await a.get(product, id)).status).toBe(200);
    expect(ids(await a.list(product))).toContain(id);
    expect((await a.update(product, id, { value: 'by A again' })).status).toBe(200);
  });

  it(`another app ${may.read ? 'reads' : 'does not even see'} them`, async () => {
    expect((await b.get(product, id)).status).toBe(may.read ? 200 : 404);
    expect(ids(await b.list(product)).includes(id)).toBe(may.read);
    expect(ids(await b.list(product, `?namespace=shared&key=${key}`)).includes(id)).toBe(may.read);
  });

  it(`another app's writes: ${may.write ? 'allowed' : may.read ? '403' : '404'}`, async () => {
    const status = may.write ? 200 : may.read ? 403 : 404;
    const put = await b.update(product, id, { value: 'by B' });
    expect(put.status).toBe(status);
    const post = await b.create(product, { namespace: 'shared', key, value: 'by B (post)' });
    expect(post.status).toBe(status);
    const bulk = await b.set([{ owner_resource: 'products', owner_id: product, namespace: 'shared', key, value: 'by B (bulk)' }]);
    expect(bulk.status).toBe(status);
    if (status === 403) {
      expect(put.body.errors).toMatch(/^Access denied/);
      expect(bulk.body.errors).toMatch(/^metafields\[0\]: Access denied/);
    }
    if (!may.write) expect((await a.get(product, id)).body.metafield.value).toBe('by A again');
  });

  it(`another app's delete: ${may.write ? '200' : may.read ? '403' : '404'}, the creator's: 200`, async () => {
    const r = await b.remove(product, id);
    expect(r.status).toBe(may.write ? 200 : may.read ? 403 : 404);
    if (!may.write) expect((await a.remove(product, id)).status).toBe(200);
    expect((await a.get(product, id)).status).toBe(404);
  });
});

describe('the merchant (operator API) honours access too', () => {
  it('lists values of every definition except PRIVATE ones', async () => {
    const visible = await a.define({ namespace: 'merchant', key: 'seen', type: 'boolean', access: { admin: 'MERCHANT_READ' } });
    const hidden = await a.define({ namespace: 'merchant', key: 'hidden', type: 'boolean', access: { admin: 'PRIVATE' } });
    const seen = await a.create(product, { namespace: visible.namespace, key: 'seen', value: 'true' });
    const secret = await a.create(product, { namespace: hidden.namespace, key: 'hidden', value: 'true' });
    const listed = (await storeValues(t, HANDLE, '?limit=1000')).body.metafields.map((m: { id: string }) => m.id);
    expect(listed).toContain(seen.body.metafield.id);
    expect(listed).not.toContain(secret.body.metafield.id);
  });
});

describe('app namespaces (decisions §8.2)', () => {
  it('$app:x is stored and answered as app--{app_id}--x, and either spelling addresses it', async () => {
    const r = await a.create(product, { namespace: '$app:prefs', key: 'theme', type: 'single_line_text_field', value: 'dark' });
    expect(r.status).toBe(201);
    expect(r.body.metafield.namespace).toBe(`app--${appA}--prefs`);
    const again = await a.create(product, {
      namespace: `app--${appA}--prefs`,
      key: 'theme',
      type: 'single_line_text_field',
      value: 'light',
    });
    expect(again.status).toBe(200);
    expect(again.body.metafield.id).toBe(r.body.metafield.id);
    expect(ids(await a.list(product, '?namespace=$app:prefs'))).toEqual([r.body.metafield.id]);
    expect(ids(await a.list(product, `?namespace=app--${appA}--prefs`))).toEqual([r.body.metafield.id]);
    const put = await a.update(product, r.body.metafield.id, { namespace: '$app:prefs', value: 'blue' });
    expect(put.status).toBe(200);
  });

  it('decisions §8.2: app--{own id}--x is checked on x like $app:x, so a 250-character x is written and rewritten in either spelling', async () => {
    const long = 'v'.repeat(250);
    await a.define({ namespace: `$app:${long}`, key: 'defined', type: 'single_line_text_field' });
    for (const key of ['defined', 'undefined_key']) {
      const created = await a.create(product, { namespace: `app--${appA}--${long}`, key, type: 'single_line_text_field', value: 'one' });
      expect(created.status, created.text).toBe(201);
      expect(created.body.metafield.namespace).toBe(`app--${appA}--${long}`);
      const again = await a.create(product, { namespace: `$app:${long}`, key, value: 'two', type: 'single_line_text_field' });
      expect([again.status, again.body.metafield?.id]).toEqual([200, created.body.metafield.id]);
      const put = await a.update(product, created.body.metafield.id, { value: 'three' });
      expect(put.status, put.text).toBe(200);
    }
    const short = await a.create(product, { namespace: `app--${appA}--ab`, key: 'short', type: 'single_line_text_field', value: 'x' });
    expect([short.status, short.body.errors]).toEqual([422, 'namespace: is too short (minimum is 3 characters)']);
  });

  it('another app may not use it, even without a definition: its values are invisible (404), writes there 403; its own $app:x is its own', async () => {
    const mine = await a.create(product, { namespace: '$app:private', key: 'token', type: 'single_line_text_field', value: 'secret' });
    const id = mine.body.metafield.id as string;
    expect((await b.get(product, id)).status).toBe(404);
    expect(ids(await b.list(product))).not.toContain(id);
    expect((await b.update(product, id, { value: 'stolen' })).status).toBe(404);
    expect((await b.remove(product, id)).status).toBe(404);
    // Writes naming another app's namespace are refused by the name alone: 403 whether or not a value or definition exists.
    for (const key of ['token', 'never_used']) {
      const intrude = await b.create(product, { namespace: `app--${appA}--private`, key, type: 'single_line_text_field', value: 'x' });
      expect(intrude.status).toBe(403);
      expect(intrude.body.errors).toBe(
        `namespace: app--${appA}--private is reserved to another app; only that app may create, change or delete definitions and values there`,
      );
    }
    const intrudeBulk = await b.set([
      {
        owner_resource: 'products',
        owner_id: product,
        namespace: `app--${appA}--private`,
        key: 'token',
        type: 'single_line_text_field',
        value: 'x',
      },
    ]);
    expect(intrudeBulk.status).toBe(403);
    expect(intrudeBulk.body.errors).toBe(
      `metafields[0].namespace: app--${appA}--private is reserved to another app; only that app may create, change or delete definitions and values there`,
    );
    const own = await b.create(product, { namespace: '$app:private', key: 'token', type: 'single_line_text_field', value: 'mine' });
    expect(own.status).toBe(201);
    expect(own.body.metafield.namespace).toBe(`app--${appB}--private`);
    expect((await a.get(product, id)).body.metafield.value).toBe('secret');
  });

  it('a definition in an app namespace with PUBLIC_READ lets other apps read its values, not write them', async () => {
    const def = await a.define({
      namespace: '$app:catalog',
      key: 'badge',
      type: 'single_line_text_field',
      access: { admin: 'PUBLIC_READ' },
    });
    expect(def.namespace).toBe(`app--${appA}--catalog`);
    const value = await a.create(product, { namespace: '$app:catalog', key: 'badge', value: 'new' });
    expect(value.status).toBe(201);
    expect((await b.get(product, value.body.metafield.id)).body.metafield.value).toBe('new');
    expect((await b.update(product, value.body.metafield.id, { value: 'old' })).status).toBe(403);
  });

  it('decisions §8.2 "only that app may use it": under NONE in an app namespace other apps read values but never write them (403)', async () => {
    await a.define({ namespace: '$app:open', key: 'note', type: 'single_line_text_field', access: { admin: 'NONE' } });
    const value = await a.create(product, { namespace: '$app:open', key: 'note', value: 'by A' });
    expect(value.status).toBe(201);
    const id = value.body.metafield.id as string;
    expect((await b.get(product, id)).body.metafield.value).toBe('by A');
    expect(ids(await b.list(product, `?namespace=app--${appA}--open`))).toEqual([id]);
    const reserved = `namespace: app--${appA}--open is reserved to another app; only that app may create, change or delete definitions and values there`;
    const put = await b.update(product, id, { value: 'by B' });
    expect([put.status, put.body.errors]).toEqual([403, reserved]);
    const post = await b.create(product, { namespace: `app--${appA}--open`, key: 'note', value: 'by B' });
    expect([post.status, post.body.errors]).toEqual([403, reserved]);
    const bulk = await b.set([
      { owner_resource: 'products', owner_id: product, namespace: `app--${appA}--open`, key: 'note', value: 'by B' },
    ]);
    expect([bulk.status, bulk.body.errors]).toEqual([403, `metafields[0].${reserved}`]);
    const removed = await b.remove(product, id);
    expect([removed.status, removed.body.errors]).toEqual([403, reserved]);
    expect((await a.get(product, id)).body.metafield.value).toBe('by A');
    expect((await a.update(product, id, { value: 'by A again' })).status).toBe(200);
  });

  it('decisions §8.2: a shared namespace that merely starts with "app-" is an ordinary one; only look-alikes of app--{id}--x are refused', async () => {
    for (const namespace of ['app-2024-promo', 'app-1-x']) {
      const def = await a.define({ namespace, key: 'banner', type: 'single_line_text_field' });
      expect(def.namespace).toBe(namespace);
      const mine = await a.create(product, { namespace, key: 'banner', value: 'by A' });
      expect(mine.status, mine.text).toBe(201);
      // Shared: another app reads and writes it (access unset, no reserved namespace).
      const theirs = await b.update(product, mine.body.metafield.id, { value: 'by B' });
      expect(theirs.status, theirs.text).toBe(200);
    }
    for (const namespace of [`app-${appA}--x1y`, `App--${appA}--x1y`, 'app--settings']) {
      const r = await b.create(product, { namespace, key: 'banner', type: 'single_line_text_field', value: 'x' });
      expect([r.status, r.body.errors]).toEqual([
        422,
        'namespace: looks like an app-reserved namespace but is not spelled app--{app id}--{name}; use $app:{name}',
      ]);
    }
  });

  it('the merchant sees app namespace values (an unset access behaves as MERCHANT_READ_WRITE, decisions §8.7)', async () => {
    const r = await a.create(product, { namespace: '$app:merchant', key: 'note', type: 'single_line_text_field', value: 'hi' });
    const listed = (await storeValues(t, HANDLE, '?limit=1000')).body.metafields.map((m: { id: string }) => m.id);
    expect(listed).toContain(r.body.metafield.id);
  });
});
