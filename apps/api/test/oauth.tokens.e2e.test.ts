import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, operator, startPlatform, storeWithApp, type Answer, type TestPlatform } from './harness';
import { createOAuthApp, installWithToken, readShop, serviceNow, storeHost, tokenCall, type OAuthApp } from './oauth.helpers';

let t: TestPlatform;
const op = () => operator(t);

beforeAll(async () => {
  t = await startPlatform();
  await op().createStore('alpha');
  await op().createStore('beta');
});
afterAll(async () => t?.close());

async function code(handle: string, app: OAuthApp, scopes: string[] = app.scopes): Promise<string> {
  const r = await op().call(`/stores/${handle}/apps/${app.id}/install`, { body: { scopes } });
  expect(r.status).toBe(201);
  return r.body.code;
}

function expectRefusal(r: Answer, status: number, i18nCode: string, message: RegExp) {
  expect({ status: r.status, body: r.body }).toMatchObject({ status, body: { code: status, i18nCode, data: null } });
  expect(r.body.message).toMatch(message);
  // decisions §5.2: the family's envelope, with `errors` (decisions §4) beside it for every other client.
  expect(Object.keys(r.body)).toEqual(['code', 'i18nCode', 'message', 'errors', 'data']);
  expect(r.body.errors).toBe(r.body.message);
  expect(r.headers.get('traceId')).toMatch(/^[0-9a-f-]{36}$/);
  expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
}

describe('POST /admin/oauth/token/create (decisions §5.2)', () => {
  it('exchanges a code for a 10-hour token in the envelope, byte for byte, and the token calls the Admin API', async () => {
    const app = await createOAuthApp(t, 'public');
    const now = await serviceNow(t);
    const r = await tokenCall(t, 'create', app, { body: { code: await code('alpha', app) }, nowMs: now });
    expect(r.status).toBe(200);
    expect(r.headers.get('traceId')).toBeTruthy();
    expect(Object.keys(r.body)).toEqual(['code', 'i18nCode', 'message', 'data']);
    expect(r.body).toMatchObject({ code: 200, i18nCode: 'SUCCESS', message: 'ok' });
    expect(Object.keys(r.body.data)).toEqual(['accessToken', 'expireTime', 'scope']);
    expect(r.body.data.scope).toBe('write_products,read_store_information');
    expect(r.body.data.expireTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/);
    expect(Date.parse(r.body.data.expireTime)).toBe(Math.floor((now + 10 * 3_600_000) / 1000) * 1000);
    expect(r.body.data.accessToken).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    const shop = await readShop(t, r.body.data.accessToken);
    expect(shop.status).toBe(200);
    expect(shop.body.data.handle).toBe('alpha');
  });

  it('grants exactly the approved scopes: a token never carries more than the app requested', async () => {
    const app = await createOAuthApp(t, 'public');
    const token = await installWithToken(t, 'alpha', app, ['read_products']);
    expect(token.scope).toBe('read_products');
    expect((await readShop(t, token.accessToken)).status).toBe(403);
    const products = await call(`${t.origin}/admin/openapi/v20260901/products/products.json`, { token: token.accessToken });
    expect(products.status).toBe(200);
    const more = await op().call(`/stores/alpha/apps/${app.id}/install`, { body: { scopes: ['write_inventory'] } });
    expect(more.status).toBe(422);
    expect(more.body.errors).toMatch(/^scopes: write_inventory is not among the scopes the app registered/);
  });

  it('refuses a bad sign, a sign over another body, and missing or unknown signing headers with 401', async () => {
    const app = await createOAuthApp(t, 'public');
    const c = await code('alpha', app);
    const now = await serviceNow(t);
    expectRefusal(
      await tokenCall(t, 'create', app, { body: { code: c }, nowMs: now, sign: 'ab'.repeat(32) }),
      401,
      'INVALID_SIGNATURE',
      /sign does not match/,
    );
    const wrongSecret = { ...app, app_secret: 'not-the-secret' };
    expectRefusal(
      await tokenCall(t, 'create', wrongSecret, { body: { code: c }, nowMs: now }),
      401,
      'INVALID_SIGNATURE',
      /sign does not match/,
    );
    for (const omit of ['appkey', 'timestamp', 'sign'] as const) {
      expectRefusal(
        await tokenCall(t, 'create', app, { body: { code: c }, nowMs: now, omit }),
        401,
        'INVALID_SIGNATURE',
        /headers are required/,
      );
    }
    expectRefusal(
      await tokenCall(t, 'create', { ...app, app_key: 'nope' }, { body: { code: c }, nowMs: now }),
      401,
      'INVALID_SIGNATURE',
      /no custom or public app/,
    );
    // The code was never spent by the refused calls.
    expect((await tokenCall(t, 'create', app, { body: { code: c }, nowMs: now })).status).toBe(200);
  });

  it('refuses a timestamp 11 minutes off the service clock either way, and takes one 9 minutes off', async () => {
    const app = await createOAuthApp(t, 'public');
    const c = await code('alpha', app);
    const now = await serviceNow(t);
    for (const offset of [11 * 60_000, -11 * 60_000]) {
      expectRefusal(
        await tokenCall(t, 'create', app, { body: { code: c }, timestamp: now + offset }),
        401,
        'INVALID_SIGNATURE',
        /10 minutes/,
      );
    }
    expectRefusal(
      await tokenCall(t, 'create', app, { body: { code: c }, timestamp: 'yesterday' }),
      401,
      'INVALID_SIGNATURE',
      /milliseconds/,
    );
    expect((await tokenCall(t, 'create', app, { body: { code: c }, timestamp: now - 9 * 60_000 })).status).toBe(200);
  });

  it('refuses a reused code, a code of another app, a code sent to another store, an unknown or expired code', async () => {
    const app = await createOAuthApp(t, 'public');
    const other = await createOAuthApp(t, 'public');
    const c = await code('alpha', app);
    const now = await serviceNow(t);
    expectRefusal(await tokenCall(t, 'create', other, { body: { code: c }, nowMs: now }), 400, 'INVALID_GRANT', /another app/);
    expectRefusal(
      await tokenCall(t, 'create', app, { body: { code: c }, nowMs: now, host: storeHost(t, 'beta') }),
      400,
      'INVALID_GRANT',
      /another store/,
    );
    expect((await tokenCall(t, 'create', app, { body: { code: c }, nowMs: now, host: storeHost(t, 'alpha') })).status).toBe(200);
    expectRefusal(await tokenCall(t, 'create', app, { body: { code: c }, nowMs: now }), 400, 'INVALID_GRANT', /already used/);
    expectRefusal(await tokenCall(t, 'create', app, { body: { code: 'made-up' }, nowMs: now }), 400, 'INVALID_GRANT', /unknown/);
    const late = await code('alpha', app);
    await op().advanceClock(10 * 60 + 1);
    expectRefusal(await tokenCall(t, 'create', app, { body: { code: late }, nowMs: await serviceNow(t) }), 400, 'INVALID_GRANT', /expired/);
  });

  it('answers a body that is not the contract in the envelope too', async () => {
    const app = await createOAuthApp(t, 'public');
    const now = await serviceNow(t);
    expectRefusal(await tokenCall(t, 'create', app, { body: { kode: 'x' }, nowMs: now }), 422, 'VALIDATION_FAILED', /code/);
    // What /openapi.json states: a code is at most 200 characters, a token call's body at most 4 KB.
    expectRefusal(await tokenCall(t, 'create', app, { body: { code: 'c'.repeat(201) }, nowMs: now }), 422, 'VALIDATION_FAILED', /^code: /);
    expectRefusal(
      await tokenCall(t, 'create', app, { body: { code: 'c'.repeat(200), note: 'n'.repeat(4096) }, nowMs: now }),
      413,
      'PAYLOAD_TOO_LARGE',
      /limit of 4 KB/,
    );
    // A sign of the right form, over other bytes: the headers admit the body, which is then read.
    const malformed = await call(`${t.origin}/admin/oauth/token/create`, {
      method: 'POST',
      rawBody: '{"code":',
      headers: { 'content-type': 'application/json', appkey: app.app_key, timestamp: String(now), sign: 'ab'.repeat(32) },
    });
    expectRefusal(malformed, 400, 'BAD_REQUEST', /Malformed JSON/);
    // A sign that cannot be one: refused on the headers, before the body is read (issue 14).
    const unsigned = await call(`${t.origin}/admin/oauth/token/create`, {
      method: 'POST',
      rawBody: '{"code":',
      headers: { 'content-type': 'application/json', appkey: app.app_key, timestamp: String(now), sign: 'x' },
    });
    expectRefusal(unsigned, 401, 'INVALID_SIGNATURE', /sign must be the 64 hex digits/);
    expectRefusal(await call(`${t.origin}/admin/oauth/token/other`, { method: 'POST' }), 404, 'NOT_FOUND', /Not Found/);
  });
});

describe('POST /admin/oauth/token/refresh (decisions §5.3)', () => {
  it('keeps the old token exactly 5 more minutes: usable at 4 min 59 s, refused at 5 min 01 s', async () => {
    const app = await createOAuthApp(t, 'public');
    const first = await installWithToken(t, 'alpha', app);
    const r = await tokenCall(t, 'refresh', app, { host: storeHost(t, 'alpha'), nowMs: await serviceNow(t) });
    expect(r.status).toBe(200);
    expect(r.body.data.scope).toBe('write_products,read_store_information');
    expect(r.body.data.accessToken).not.toBe(first.accessToken);
    await op().advanceClock(4 * 60 + 59);
    expect((await readShop(t, first.accessToken)).status).toBe(200);
    await op().advanceClock(2);
    const old = await readShop(t, first.accessToken);
    expect(old.status).toBe(401);
    expect(old.body.errors).toMatch(/expired/);
    expect((await readShop(t, r.body.data.accessToken)).status).toBe(200);
  });

  it('names its store by the Host: another store without the app is 404, the bare address 400', async () => {
    const app = await createOAuthApp(t, 'public');
    await installWithToken(t, 'alpha', app);
    const now = await serviceNow(t);
    expectRefusal(
      await tokenCall(t, 'refresh', app, { host: storeHost(t, 'beta'), nowMs: now }),
      404,
      'NOT_FOUND',
      /not installed on store 'beta'/,
    );
    expectRefusal(await tokenCall(t, 'refresh', app, { nowMs: now }), 400, 'INVALID_PARAMETER', /store's host/);
    expectRefusal(await tokenCall(t, 'refresh', app, { host: storeHost(t, 'gamma'), nowMs: now }), 404, 'NOT_FOUND', /gamma/);
  });

  it('lets a token live exactly 10 hours, and refuses a refresh after that (authorize again)', async () => {
    const app = await createOAuthApp(t, 'custom');
    const token = await installWithToken(t, 'alpha', app);
    await op().advanceClock(10 * 3600 - 1);
    expect((await readShop(t, token.accessToken)).status).toBe(200);
    await op().advanceClock(1);
    const expired = await readShop(t, token.accessToken);
    expect(expired.status).toBe(401);
    expect(expired.body.errors).toMatch(/expired/);
    expectRefusal(
      await tokenCall(t, 'refresh', app, { host: storeHost(t, 'alpha'), nowMs: await serviceNow(t) }),
      401,
      'TOKEN_EXPIRED',
      /expired/,
    );
  });
});

describe('POST /admin/oauth/token/cancel and uninstall (decisions §5.3)', () => {
  it('kills every token of the app on the store at once, the one in its grace minutes too, and removes the installation', async () => {
    const app = await createOAuthApp(t, 'public');
    const first = await installWithToken(t, 'alpha', app);
    const onBeta = await installWithToken(t, 'beta', app);
    const refreshed = await tokenCall(t, 'refresh', app, { host: storeHost(t, 'alpha'), nowMs: await serviceNow(t) });
    expect((await readShop(t, first.accessToken)).status).toBe(200);
    const r = await tokenCall(t, 'cancel', app, { host: storeHost(t, 'alpha'), nowMs: await serviceNow(t) });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ code: 200, i18nCode: 'SUCCESS', message: 'ok', data: null });
    for (const token of [first.accessToken, refreshed.body.data.accessToken]) {
      const dead = await readShop(t, token);
      expect(dead.status).toBe(401);
      expect(dead.body.errors).toMatch(/unknown or revoked/);
    }
    // The same app on another store is untouched; the cancelled installation is gone.
    expect((await readShop(t, onBeta.accessToken)).status).toBe(200);
    expectRefusal(
      await tokenCall(t, 'refresh', app, { host: storeHost(t, 'alpha'), nowMs: await serviceNow(t) }),
      404,
      'NOT_FOUND',
      /not installed/,
    );
    expectRefusal(
      await tokenCall(t, 'cancel', app, { host: storeHost(t, 'alpha'), nowMs: await serviceNow(t) }),
      404,
      'NOT_FOUND',
      /not installed/,
    );
  });

  it('removes what an uninstall removes: the webhook subscriptions go, pending deliveries end failed, nothing more is sent', async () => {
    const app = await createOAuthApp(t, 'public', ['write_products', 'read_inventory']);
    const token = await installWithToken(t, 'alpha', app);
    const hook = await call(`${t.origin}/admin/openapi/v20260901/webhooks.json`, {
      token: token.accessToken,
      body: { webhook: { topic: 'inventory_items/update', address: 'https://cancelled.example.com/in' } },
    });
    expect(hook.status).toBe(201);
    await op().call('/stores/alpha/products', { body: { product: { title: 'Stocked', variants: [{ sku: 'C-1' }] } } });
    const store = await t.db.prisma.store.findUniqueOrThrow({ where: { handle: 'alpha' } });
    const item = await t.db.prisma.inventoryItem.findFirstOrThrow({ where: { storeId: store.id, sku: 'C-1' } });
    expect(
      (await op().call(`/stores/alpha/inventory_items/${item.id}`, { method: 'PUT', body: { inventory_item: { sku: 'C-2' } } })).status,
    ).toBe(200);
    const mine = { storeId: store.id, appId: BigInt(app.id) };
    expect(await t.db.prisma.webhookDelivery.count({ where: { ...mine, status: 'pending' } })).toBe(1);

    expect((await tokenCall(t, 'cancel', app, { host: storeHost(t, 'alpha'), nowMs: await serviceNow(t) })).status).toBe(200);
    expect(await t.db.prisma.webhookSubscription.count({ where: mine })).toBe(0);
    expect(await t.db.prisma.webhookDelivery.count({ where: { ...mine, status: 'pending' } })).toBe(0);
    expect(await t.db.prisma.webhookDelivery.findFirstOrThrow({ where: mine })).toMatchObject({
      status: 'failed',
      lastError: 'app authorization cancelled',
    });
    // Installed again, the app starts without the old subscription (the same address is free again).
    const again = await installWithToken(t, 'alpha', app);
    const list = await call(`${t.origin}/admin/openapi/v20260901/webhooks.json`, { token: again.accessToken });
    expect(list.body.webhooks).toEqual([]);
  });

  it('makes a code issued before the cancel useless', async () => {
    const app = await createOAuthApp(t, 'public');
    await installWithToken(t, 'alpha', app);
    const pending = await code('alpha', app);
    expect((await tokenCall(t, 'cancel', app, { host: storeHost(t, 'alpha'), nowMs: await serviceNow(t) })).status).toBe(200);
    expectRefusal(
      await tokenCall(t, 'create', app, { body: { code: pending }, nowMs: await serviceNow(t) }),
      400,
      'INVALID_GRANT',
      /unknown/,
    );
  });

  it('uninstall through the operator API invalidates the tokens at once', async () => {
    const app = await createOAuthApp(t, 'public');
    const token = await installWithToken(t, 'alpha', app);
    expect((await op().call(`/stores/alpha/apps/${app.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await readShop(t, token.accessToken)).status).toBe(401);
    expectRefusal(
      await tokenCall(t, 'refresh', app, { host: storeHost(t, 'alpha'), nowMs: await serviceNow(t) }),
      404,
      'NOT_FOUND',
      /not installed/,
    );
  });
});

describe('app kinds (docs/decisions.md)', () => {
  it('installs a public app on many stores, a custom app on one store only', async () => {
    const pub = await createOAuthApp(t, 'public');
    await installWithToken(t, 'alpha', pub);
    await installWithToken(t, 'beta', pub);
    const custom = await createOAuthApp(t, 'custom');
    await installWithToken(t, 'alpha', custom);
    const second = await op().call(`/stores/beta/apps/${custom.id}/install`, { body: { scopes: custom.scopes } });
    expect(second.status).toBe(422);
    expect(second.body.errors).toBe('app: is a custom app of another store; a custom app installs on one store only');
    // Still its own store's after an uninstall: installing again there works.
    await op().call(`/stores/alpha/apps/${custom.id}`, { method: 'DELETE' });
    expect((await op().call(`/stores/beta/apps/${custom.id}/install`, { body: { scopes: custom.scopes } })).status).toBe(422);
    await installWithToken(t, 'alpha', custom);
  });

  it('binds a custom app created with store_handle to that store from the start', async () => {
    const custom = await createOAuthApp(t, 'custom', ['read_products'], { store_handle: 'beta' });
    expect((await op().call(`/stores/alpha/apps/${custom.id}/install`, { body: { scopes: ['read_products'] } })).status).toBe(422);
    await installWithToken(t, 'beta', custom);
    const pub = await op().call('/apps', { body: { app: { name: 'p', kind: 'public', scopes: ['read_products'], store_handle: 'beta' } } });
    expect(pub.status).toBe(422);
  });

  it('never signs token calls for a private app', async () => {
    const priv = await op().createPrivateApp('alpha', ['read_products']);
    const r = await tokenCall(
      t,
      'refresh',
      { app_key: (priv.app as { app_key?: string }).app_key ?? '', app_secret: priv.app.app_secret },
      {
        host: storeHost(t, 'alpha'),
        nowMs: await serviceNow(t),
      },
    );
    expectRefusal(r, 401, 'INVALID_SIGNATURE', /no custom or public app/);
  });
});

describe('store status on the token calls (decisions §5.6)', () => {
  it('refuses create and refresh on a frozen (402) or closed (423) store; cancel always works', async () => {
    await op().createStore('restricted');
    const app = await createOAuthApp(t, 'public');
    await installWithToken(t, 'restricted', app);
    const c = await code('restricted', app);
    const host = storeHost(t, 'restricted');
    await op().call('/stores/restricted', { method: 'PATCH', body: { store: { status: 'frozen' } } });
    expectRefusal(await tokenCall(t, 'create', app, { body: { code: c }, nowMs: await serviceNow(t) }), 402, 'PAYMENT_REQUIRED', /frozen/);
    expectRefusal(await tokenCall(t, 'refresh', app, { host, nowMs: await serviceNow(t) }), 402, 'PAYMENT_REQUIRED', /frozen/);
    await op().call('/stores/restricted', { method: 'PATCH', body: { store: { status: 'closed' } } });
    expectRefusal(await tokenCall(t, 'refresh', app, { host, nowMs: await serviceNow(t) }), 423, 'STORE_CLOSED', /closed/);
    expect((await tokenCall(t, 'cancel', app, { host, nowMs: await serviceNow(t) })).status).toBe(200);
  });
});

describe('the contract', () => {
  it('serves the three token calls in /openapi.json with their signing headers', async () => {
    const doc = await call(`${t.origin}/openapi.json`);
    for (const action of ['create', 'refresh', 'cancel']) {
      const op = doc.body.paths[`/admin/oauth/token/${action}`].post;
      expect(
        op.parameters
          .filter((p: { in: string }) => p.in === 'header')
          .map((p: { name: string }) => p.name)
          .sort(),
      ).toEqual(['appkey', 'sign', 'timestamp']);
    }
    expect(doc.body.paths['/platform/v1/stores/{handle}/admin_sessions'].post.operationId).toBe('createAdminSession');
    const create = doc.body.paths['/admin/oauth/token/create'].post;
    expect(create.requestBody.content['application/json'].schema.properties.code.maxLength).toBe(200);
    expect(create.responses['413'].description).toMatch(/over 4 KB/);
  });

  it('keeps refusing form bodies on the Admin API (decisions §3.1)', async () => {
    const { token } = await storeWithApp(t, 'formbody', ['write_metafields']);
    const r = await call(`${t.origin}/admin/openapi/v20260901/metafield_definition.json`, {
      method: 'POST',
      token,
      rawBody: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(400);
    expect(r.body.errors).toMatch(/^Content-Type must be application\/json/);
  });
});
