/*
 * The OAuth helpers against the real API (decisions §5.2-§5.3): the code from the operator's install
 * call (the same kind of code the consent page gives), exchange, calls with the token, refresh with
 * its grace, cancel. Stores are reached on their own host, `{handle}.localhost:<port>`, as refresh and
 * cancel require; the test's fetch connects to 127.0.0.1 and sends that Host (Node's fetch cannot).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createOAuth, PlatformApiError } from '../src/index';
import { sharedLiveServer, VERSION, viaLoopback, type LiveServer } from './live-server';

let server: LiveServer;
let app: { id: string; app_key: string; app_secret: string };
const handle = 'oauth-live';

beforeAll(async () => {
  server = await sharedLiveServer();
  await server.createStore(handle);
  const created = await server.operator('POST', '/apps', {
    app: {
      name: 'Live OAuth app',
      kind: 'public',
      scopes: ['read_products', 'read_store_information'],
      redirect_urls: ['https://app.example/callback'],
    },
  });
  expect(created.status).toBe(201);
  app = created.body.app;
}, 120_000);
async function installCode(): Promise<string> {
  const r = await server.operator('POST', `/stores/${handle}/apps/${app.id}/install`, {
    scopes: ['read_products', 'read_store_information'],
  });
  expect(r.status).toBe(201);
  return r.body.code as string;
}

describe('OAuth helpers against the real API', () => {
  it('exchange, call, refresh (single flight, old token kept 5 minutes), cancel', async () => {
    const oauth = createOAuth({
      appKey: app.app_key,
      appSecret: app.app_secret,
      storeOrigin: (h) => `http://${h}.localhost:${server.port}`,
      fetch: viaLoopback,
    });
    const token = await oauth.exchangeCode(handle, await installCode());
    expect(token).toMatchObject({ handle, scope: 'read_products,read_store_information' });
    expect(Date.parse(token.expiresAt) - Date.now()).toBeGreaterThan(9.9 * 3600_000);

    const client = oauth.client(handle, { apiVersion: VERSION, rateLimit: false });
    expect((await client.admin.getShop()).data.handle).toBe(handle);

    // Two callers at once share one refresh.
    const [a, b] = await Promise.all([oauth.refresh(handle), oauth.refresh(handle)]);
    expect(a.accessToken).toBe(b.accessToken);
    expect(a.accessToken).not.toBe(token.accessToken);
    // The old token stays usable for the grace period (decisions §5.3).
    const old = await fetch(`${server.origin}/admin/openapi/${VERSION}/merchants/shop.json`, {
      headers: { authorization: `Bearer ${token.accessToken}` },
    });
    expect(old.status).toBe(200);
    expect((await client.admin.getShop()).data.handle).toBe(handle);

    await oauth.cancel(handle);
    expect(await oauth.store.get(handle)).toBeUndefined();
    for (const revoked of [a.accessToken, token.accessToken]) {
      const r = await fetch(`${server.origin}/admin/openapi/${VERSION}/merchants/shop.json`, {
        headers: { authorization: `Bearer ${revoked}` },
      });
      expect(r.status).toBe(401);
    }
  });

  it('a reused code and a wrong secret are typed API errors naming the call', async () => {
    const oauth = createOAuth({
      appKey: app.app_key,
      appSecret: app.app_secret,
      storeOrigin: (h) => `http://${h}.localhost:${server.port}`,
      fetch: viaLoopback,
    });
    const code = await installCode();
    await oauth.exchangeCode(handle, code);
    const reused = await oauth.exchangeCode(handle, code).catch((e: unknown) => e);
    expect(reused).toBeInstanceOf(PlatformApiError);
    expect(reused).toMatchObject({ method: 'POST', path: '/admin/oauth/token/create' });
    expect((reused as PlatformApiError).status).toBeGreaterThanOrEqual(400);
    expect((reused as PlatformApiError).status).toBeLessThan(500);

    const forged = createOAuth({
      appKey: app.app_key,
      appSecret: 'not-the-secret-0123456789',
      storeOrigin: (h) => `http://${h}.localhost:${server.port}`,
      fetch: viaLoopback,
    });
    const refused = await forged.exchangeCode(handle, await installCode()).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 401, method: 'POST' });
  });
});
