import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, operator, startPlatform, VERSION, type TestPlatform } from './harness';
import { adminApi, errorsBeside, expectPage, merchantOf, operatorPrivateApp, type MerchantClient } from './merchant-admin.helpers';
import { createOAuthApp, installWithToken, readShop } from './oauth.helpers';
import { setClock } from './resource-feedback.helpers';

/**
 * The merchant's apps page (issue 18, 4) over real HTTP: private apps created, refreshed (the old
 * token 5 more minutes, decisions §5.4) and deleted, installed apps uninstalled with the
 * cancel-authorization effect (decisions §5.3), and every new form refused without its CSRF token.
 */

const START = '2026-11-22T04:00:00Z';
let t: TestPlatform;
let m: MerchantClient;

const tokenOf = (text: string) => /id="token-value" class="token" type="text" value="([^"]+)"/.exec(text)?.[1];
const works = async (token: string) => (await call(`${t.origin}/admin/openapi/${VERSION}/products/products.json`, { token })).status;

beforeAll(async () => {
  t = await startPlatform({ PLATFORM_RATE_LIMIT_CAPACITY: '100000' });
  await setClock(t, START);
  await operator(t).createStore('shop', { name: 'Corner Shop', iana_timezone: 'Asia/Shanghai' });
  await operator(t).createStore('elsewhere');
  m = await merchantOf(t, 'shop');
}, 120_000);
afterAll(async () => t?.close());

describe('private apps (decisions §5.4)', () => {
  it('creates one: the token shown once with a Copy button and its 3-year expiry; the token works on the Admin API', async () => {
    const form = await m.get('/admin/private_apps/new');
    expectPage(form, 200, /Create private app/);
    const r = await m.post('/admin/private_apps', { name: 'Stock Sync', 'scope.read_products': 'on', 'scope.write_products': 'on' });
    expectPage(r, 201, /shown <strong>only this once<\/strong>/);
    expect(r.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(r.text).toContain('<script src="/admin/assets/admin.js"></script>');
    expect(r.text).toContain('data-copy="token-value"');
    expect(r.text).toContain('2029-11-22 12:00:00 +08:00');
    const token = tokenOf(r.text)!;
    expect(await works(token)).toBe(200);
    const apps = await m.get('/admin/apps');
    expect(apps.text).toContain('Stock Sync');
    expect(apps.text).not.toContain(token);
    expect(apps.text).toContain('Not sent yet');
  });

  it("refuses a blank name and an unknown scope with the API's messages beside the fields (422), creating nothing", async () => {
    const r = await m.post('/admin/private_apps', { name: '', 'scope.read_everything': 'on' });
    expectPage(r, 422, /The app was not created/);
    // Beside its field, a problem is a sentence without the field's name (issue 47).
    expect(errorsBeside(r, 'name')).toBe("Can't be blank.");
    expect(errorsBeside(r, 'scopes')).toMatch(/^\S.*read_everything.*\.$/);
    expect(errorsBeside(r, 'scopes')).not.toMatch(/^scopes:/);
    expect(await t.db.prisma.app.count({ where: { name: '' } })).toBe(0);
  });

  it('refreshes: the new token at once, the old one 5 more minutes, then refused', async () => {
    const created = await m.post('/admin/private_apps', { name: 'Refresher', 'scope.read_products': 'on' });
    const old = tokenOf(created.text)!;
    const app = await t.db.prisma.app.findFirstOrThrow({ where: { name: 'Refresher' } });
    expectPage(await m.get(`/admin/private_apps/${app.id}/refresh`), 200, /The current token keeps working for 5 more minutes/);
    const refreshed = await m.post(`/admin/private_apps/${app.id}/refresh`, {});
    expectPage(refreshed, 200, /keeps working until <time datetime="2026-11-22T12:05:00\+08:00">/);
    const fresh = tokenOf(refreshed.text)!;
    expect(fresh).not.toBe(old);
    expect([await works(old), await works(fresh)]).toEqual([200, 200]);
    expect((await m.get('/admin/apps')).text).toContain('Previous token works until');
    await operator(t).advanceClock(301);
    expect([await works(old), await works(fresh)]).toEqual([401, 200]);
    // decisions §5.4: the page says whether the current token's expiry reminder was sent.
    await t.db.prisma.accessToken.updateMany({
      where: { installation: { appId: app.id }, supersededAt: null },
      data: { reminderSentAt: new Date('2029-10-23T04:00:00Z') },
    });
    expect((await m.get('/admin/apps')).text).toContain('Sent <time datetime="2029-10-23T12:00:00+08:00">');
  });

  it('deletes after a confirmation: every token refused at once', async () => {
    const created = await m.post('/admin/private_apps', { name: 'Doomed', 'scope.read_products': 'on' });
    const token = tokenOf(created.text)!;
    const app = await t.db.prisma.app.findFirstOrThrow({ where: { name: 'Doomed' } });
    const confirm = await m.get(`/admin/private_apps/${app.id}/delete`);
    expectPage(confirm, 200, /Delete Doomed\?/);
    expect(confirm.text).toContain(`<form method="post" action="/admin/private_apps/${app.id}/delete">`);
    const done = await m.post(`/admin/private_apps/${app.id}/delete`, {});
    expect(done.headers.get('location')).toBe('/admin/apps?done=deleted');
    expect(await works(token)).toBe(401);
    expectPage(await m.get('/admin/apps?done=deleted'), 200, /The private app was deleted/);
  });

  it("answers another store's app, a custom app on the private routes and unknown ids with the 404 page", async () => {
    const foreign = await operatorPrivateApp(t, 'elsewhere', 'Foreign', ['read_products']);
    for (const path of [
      `/admin/private_apps/${foreign.id}/delete`,
      `/admin/private_apps/${foreign.id}/refresh`,
      '/admin/private_apps/999/delete',
      '/admin/apps/abc/uninstall',
    ]) {
      expectPage(await m.get(path), 404);
      expectPage(await m.post(path, {}), 404);
    }
    expect(await works(foreign.token)).toBe(200);
  });
});

describe('installed apps: uninstall has the cancel-authorization effect (decisions §5.3)', () => {
  it('uninstalls after a confirmation: tokens refused at once, webhook subscriptions removed', async () => {
    const app = await createOAuthApp(t, 'custom', ['read_products', 'read_inventory', 'read_store_information'], { store_handle: 'shop' });
    const { accessToken } = await installWithToken(t, 'shop', app);
    const sub = await adminApi(t, accessToken)('/webhooks.json', {
      body: { webhook: { topic: 'inventory_items/update', address: 'https://app.example.com/hooks' } },
    });
    expect(sub.status, sub.text).toBe(201);
    expect((await m.get('/admin/apps')).text).toContain(`href="/admin/apps/${app.id}/uninstall"`);
    // A custom app is uninstalled, never "deleted" on the private routes.
    expectPage(await m.get(`/admin/private_apps/${app.id}/delete`), 404);
    expectPage(await m.get(`/admin/apps/${app.id}/uninstall`), 200, /Its access tokens stop working at once/);
    const done = await m.post(`/admin/apps/${app.id}/uninstall`, {});
    expect(done.headers.get('location')).toBe('/admin/apps?done=uninstalled');
    expect((await readShop(t, accessToken)).status).toBe(401);
    expect(await t.db.prisma.webhookSubscription.count({ where: { appId: BigInt(app.id) } })).toBe(0);
  });
});

describe("bodies over a form's limit (docs/security.md)", () => {
  it("refuses a signed-in post over its route's limit with the 413 page: 16 KB, 1 MB for rules and values", async () => {
    expectPage(await m.post('/admin/private_apps', { name: 'x'.repeat(17 * 1024) }), 413, /larger than this route&#39;s limit of 16 KB/);
    const big = { name: 'Big', 'rule.0.name': 'regex', 'rule.0.value': 'x'.repeat(1024 * 1024) };
    expectPage(await m.post('/admin/metafield_definitions', big), 413, /larger than this route&#39;s limit of 1024 KB/);
    // A rule value of the spec's 300,000 characters fits.
    const fits = await m.post('/admin/metafield_definitions', { ...big, 'rule.0.value': 'x'.repeat(300_000) });
    expectPage(fits, 422, /The definition was not created/);
  });
});

describe('CSRF on every new form (docs/security.md)', () => {
  it('refuses each without the form token, or from another origin (403), and changes nothing', async () => {
    const keep = await operatorPrivateApp(t, 'shop', 'Kept', ['read_products']);
    const [product] = await operator(t).createProducts('shop', [{ title: 'Kept product' }]);
    const def = await t.db.prisma.metafieldDefinition.create({
      data: {
        storeId: (await t.db.prisma.store.findUniqueOrThrow({ where: { handle: 'shop' } })).id,
        ownerResource: 'products',
        namespace: 'kept',
        key: 'kept',
        name: 'Kept',
        type: 'single_line_text_field',
        updatedAt: new Date(),
      },
    });
    const routes = [
      '/admin/private_apps',
      `/admin/private_apps/${keep.id}/refresh`,
      `/admin/private_apps/${keep.id}/delete`,
      `/admin/apps/${keep.id}/uninstall`,
      '/admin/metafield_definitions',
      `/admin/metafield_definitions/${def.id}`,
      `/admin/metafield_definitions/${def.id}/delete`,
      `/admin/products/${product}/metafields`,
    ];
    for (const path of routes) {
      expectPage(await m.post(path, { name: 'Forged' }, { token: null }), 403, /not sent from your signed-in page/);
      expectPage(await m.post(path, { name: 'Forged' }, { token: 'forged' }), 403, /not sent from your signed-in page/);
      expectPage(await m.post(path, { name: 'Forged' }, { headers: { origin: 'https://evil.example' } }), 403, /another site/);
    }
    expect(await works(keep.token)).toBe(200);
    expect(await t.db.prisma.app.count({ where: { name: 'Forged' } })).toBe(0);
    expect((await t.db.prisma.metafieldDefinition.findUniqueOrThrow({ where: { id: def.id } })).name).toBe('Kept');
  });
});
