import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, operator, startPlatform, storeWithApp, VERSION, type TestPlatform } from './harness';
import { adminAt, apiOf, PLATFORM_ENV, storeWithProducts } from './metafields.helpers';

// decisions §8.9: the values API on products, who may call it (its routes: metafields.e2e.test.ts).

let t: TestPlatform;
let token: string;
let productA: string;

beforeAll(async () => {
  t = await startPlatform(PLATFORM_ENV);
  const s = await storeWithProducts(t, 'values-main', 1);
  token = s.token;
  productA = s.productIds[0]!;
});
afterAll(async () => t?.close());

const text = (key: string, value = 'red') => ({ namespace: 'custom', key, type: 'single_line_text_field', value });

describe('authentication, scopes and store status (decisions §4, §5.5, §5.6)', () => {
  it('401 without a token', async () => {
    const r = await call(`${t.origin}/admin/openapi/${VERSION}/products/${productA}/metafields.json`);
    expect(r.status).toBe(401);
  });

  it('403 naming the missing scope: values need both the metafield and the product scope', async () => {
    const metafieldsOnly = await storeWithApp(t, 'values-scopes', ['read_metafields', 'write_metafields']);
    const products = await operator(t).createProducts('values-scopes', [{ title: 'P' }]);
    const r = await metafieldsOnly.admin(`/products/${products[0]}/metafields.json`);
    expect(r.status).toBe(403);
    expect(r.body.errors).toMatch(/read_products/);
    const w = await metafieldsOnly.admin(`/products/${products[0]}/metafields.json`, { method: 'POST', body: { metafield: text('nope') } });
    expect(w.status).toBe(403);
    expect(w.body.errors).toMatch(/write_products/);

    const readOnly = await operator(t).createPrivateApp('values-scopes', ['read_products', 'read_metafields']);
    const ro = apiOf(adminAt(t, readOnly.access_token, VERSION));
    expect((await ro.list(products[0]!)).status).toBe(200);
    const denied = await ro.create(products[0]!, text('nope'));
    expect(denied.status).toBe(403);
    expect(denied.body.errors).toMatch(/write_metafields/);
    expect((await ro.set([{ owner_resource: 'products', owner_id: products[0], ...text('nope') }])).status).toBe(403);
    expect((await ro.remove(products[0]!, '1')).status).toBe(403);
    expect((await ro.update(products[0]!, '1', { value: 'x' })).status).toBe(403);

    const productsOnly = await operator(t).createPrivateApp('values-scopes', ['read_products', 'write_products']);
    const po = apiOf(adminAt(t, productsOnly.access_token, VERSION));
    const missing = await po.get(products[0]!, '1');
    expect(missing.status).toBe(403);
    expect(missing.body.errors).toMatch(/read_metafields/);
  });

  it('402 for a frozen store, 423 for a closed one', async () => {
    const s = await storeWithProducts(t, 'values-status', 1);
    await operator(t).call('/stores/values-status', { method: 'PATCH', body: { store: { status: 'frozen' } } });
    expect((await s.api.list(s.productIds[0]!)).status).toBe(402);
    await operator(t).call('/stores/values-status', { method: 'PATCH', body: { store: { status: 'closed' } } });
    expect((await s.api.create(s.productIds[0]!, text('closed'))).status).toBe(423);
  });

  it('answers with the traceId and X-Platform-API-Version headers (decisions §2.5, §3.2)', async () => {
    const r = await call(`${t.origin}/admin/openapi/${VERSION}/products/${productA}/metafields.json`, { token });
    expect(r.headers.get('traceid')).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.headers.get('x-platform-api-version')).toBe(VERSION);
  });
});

describe('429 (decisions §7)', () => {
  it('is answered when the bucket is full', async () => {
    const small = await startPlatform({ PLATFORM_RATE_LIMIT_CAPACITY: '2', PLATFORM_RATE_LIMIT_LEAK_PER_SECOND: '0.001' });
    try {
      const s = await storeWithProducts(small, 'values-rate', 1);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await s.api.list(s.productIds[0]!)).status);
      expect(statuses).toContain(429);
    } finally {
      await small.close();
    }
  });
});
