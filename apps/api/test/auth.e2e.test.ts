import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, operator, startPlatform, storeWithApp, VERSION, type TestPlatform } from './harness';

let t: TestPlatform;
const listing = () => `${t.origin}/admin/openapi/${VERSION}/products/products.json`;

beforeAll(async () => {
  t = await startPlatform();
});
afterAll(() => t.close());

describe('bearer tokens (decisions §5)', () => {
  it('401s a request without a token', async () => {
    const r = await call(listing());
    expect(r.status).toBe(401);
    expect(r.body.errors).toMatch(/access token/i);
  });

  it('401s an unknown token', async () => {
    const r = await call(listing(), { token: 'not-a-real-token' });
    expect(r.status).toBe(401);
  });

  it('stores only a hash of the token', async () => {
    const { token } = await storeWithApp(t, 'hashed');
    const rows = await t.db.prisma.accessToken.findMany();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.tokenHash).not.toBe(token);
    }
  });

  it('401s an expired private token with a message saying it expired (3-year lifetime)', async () => {
    const { token, app } = await storeWithApp(t, 'expiring');
    const inThreeYears = await operator(t).now();
    inThreeYears.setUTCFullYear(inThreeYears.getUTCFullYear() + 3);
    expect(new Date(app.expires_at).getTime()).toBe(Math.floor(inThreeYears.getTime() / 1000) * 1000);
    expect((await call(listing(), { token })).status).toBe(200);
    await operator(t).advanceClock(3 * 366 * 86400);
    const r = await call(listing(), { token });
    expect(r.status).toBe(401);
    expect(r.body.errors).toMatch(/expired/);
    await operator(t).advanceClock(-3 * 366 * 86400);
  });

  it('keeps the old token 5 minutes after a refresh, then refuses it', async () => {
    const { token, app } = await storeWithApp(t, 'refreshing');
    const refreshed = await operator(t).call(`/stores/refreshing/apps/${app.app.id}/token/refresh`, { method: 'POST' });
    expect(refreshed.status).toBe(200);
    const fresh = refreshed.body.access_token as string;
    expect(fresh).not.toBe(token);
    await operator(t).advanceClock(299);
    expect((await call(listing(), { token })).status).toBe(200);
    expect((await call(listing(), { token: fresh })).status).toBe(200);
    await operator(t).advanceClock(2);
    const old = await call(listing(), { token });
    expect(old.status).toBe(401);
    expect((await call(listing(), { token: fresh })).status).toBe(200);
  });

  it('invalidates every token at once when the private app is deleted', async () => {
    const { token, app } = await storeWithApp(t, 'deleting');
    const r = await operator(t).call(`/stores/deleting/apps/${app.app.id}`, { method: 'DELETE' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect((await call(listing(), { token })).status).toBe(401);
  });
});

describe('hosts (decisions §1.3)', () => {
  it("401s a token of one store used on another store's host", async () => {
    const a = await storeWithApp(t, 'host-a');
    await storeWithApp(t, 'host-b');
    const onOwn = await call(listing(), { token: a.token, headers: { host: `host-a.localhost:${t.port}` } });
    expect(onOwn.status).toBe(200);
    const onOther = await call(listing(), { token: a.token, headers: { host: `host-b.localhost:${t.port}` } });
    expect(onOther.status).toBe(401);
  });

  it('resolves an IP-address host by the token alone', async () => {
    const a = await storeWithApp(t, 'by-ip');
    expect((await call(listing(), { token: a.token })).status).toBe(200);
  });
});

describe('store status (decisions §5.6)', () => {
  const patch = (handle: string, store: Record<string, unknown>) =>
    operator(t).call(`/stores/${handle}`, { method: 'PATCH', body: { store } });

  it('402s a frozen store and 423s a closed one, after authentication', async () => {
    const { token } = await storeWithApp(t, 'status');
    expect((await patch('status', { status: 'frozen' })).status).toBe(200);
    const frozen = await call(listing(), { token });
    expect(frozen.status).toBe(402);
    expect((await call(listing(), { token: 'unknown' })).status).toBe(401);
    await patch('status', { status: 'closed' });
    expect((await call(listing(), { token })).status).toBe(423);
    await patch('status', { status: 'active' });
    expect((await call(listing(), { token })).status).toBe(200);
  });

  it('402s a store whose plan has expired', async () => {
    const { token } = await storeWithApp(t, 'plan');
    const now = (await operator(t).call('/clock')).body.now as string;
    await patch('plan', { plan_expires_at: new Date(new Date(now).getTime() + 60_000).toISOString() });
    expect((await call(listing(), { token })).status).toBe(200);
    await operator(t).advanceClock(61);
    const r = await call(listing(), { token });
    expect(r.status).toBe(402);
    expect(r.body.errors).toMatch(/plan/);
  });
});

describe('scopes (decisions §5.5)', () => {
  it('403s a token without the scope and names the scope', async () => {
    const { token } = await storeWithApp(t, 'scopeless', ['read_inventory']);
    const r = await call(listing(), { token });
    expect(r.status).toBe(403);
    expect(r.body.errors).toContain('read_products');
    const shop = await call(`${t.origin}/admin/openapi/${VERSION}/merchants/shop.json`, { token });
    expect(shop.status).toBe(403);
    expect(shop.body.errors).toContain('read_store_information');
  });

  it('checks a HEAD request as the GET it mirrors: no scope, no headers of the listing', async () => {
    const { token } = await storeWithApp(t, 'headless', ['read_store_information']);
    const head = await call(listing(), { token, method: 'HEAD' });
    expect(head.status).toBe(403);
    expect(head.headers.get('link')).toBeNull();
    const { token: reader } = await storeWithApp(t, 'header', ['read_products']);
    expect((await call(listing(), { token: reader, method: 'HEAD' })).status).toBe(200);
  });

  it('lets a write scope stand for its read scope', async () => {
    const { token } = await storeWithApp(t, 'writer', ['write_products']);
    expect((await call(listing(), { token })).status).toBe(200);
  });
});

describe('operator API authentication (decisions §10)', () => {
  it('401s without the operator token', async () => {
    const r = await call(`${t.origin}/platform/v1/stores/x`);
    expect(r.status).toBe(401);
    const wrong = await call(`${t.origin}/platform/v1/clock`, { token: 'wrong-operator-token-000000' });
    expect(wrong.status).toBe(401);
  });
});
