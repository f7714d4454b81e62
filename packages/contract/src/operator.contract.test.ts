import { describe, expect, it } from 'vitest';
import { ZShop } from './shop.contract';
import { adminContract } from './contract';
import { operatorContract, ZClockSet, ZOperatorApp, ZOperatorStore, ZProductsCreate } from './operator.contract';

describe('operator routes (decisions §10)', () => {
  it('live under /platform/v1 with these methods and paths', () => {
    const routes = Object.entries(operatorContract).map(([key, route]) => `${key} ${route.method} ${route.path}`);
    expect(routes).toEqual([
      'createStore POST /platform/v1/stores',
      'getStore GET /platform/v1/stores/:handle',
      'updateStore PATCH /platform/v1/stores/:handle',
      'createApp POST /platform/v1/apps',
      'installApp POST /platform/v1/stores/:handle/apps/:appId/install',
      'createAdminSession POST /platform/v1/stores/:handle/admin_sessions',
      'refreshAppToken POST /platform/v1/stores/:handle/apps/:appId/token/refresh',
      'deleteApp DELETE /platform/v1/stores/:handle/apps/:appId',
      'createProducts POST /platform/v1/stores/:handle/products',
      'updateProduct PATCH /platform/v1/stores/:handle/products/:id',
      'getClock GET /platform/v1/clock',
      'setClock POST /platform/v1/clock',
    ]);
  });

  it('are marked for the operator token, and carry the common error responses', () => {
    for (const route of Object.values(operatorContract)) {
      expect(route.metadata).toEqual({ auth: 'operator' });
      // No rate limit, store status or scope on the operator API: no 402, 403, 423 or 429 (issue 43).
      expect(Object.keys(route.responses)).toEqual(expect.arrayContaining(['400', '401', '404', '422', '500']));
      expect(Object.keys(route.responses)).not.toContain('429');
    }
  });

  it('wrap store bodies in "store"', () => {
    const body = operatorContract.createStore.body;
    expect(body.safeParse({ store: { handle: 'demo', name: 'Demo', currency: 'USD' } }).success).toBe(true);
    expect(body.safeParse({ handle: 'demo', name: 'Demo' }).success).toBe(false);
  });

  it('accept only the three store statuses, and null to clear the plan expiry', () => {
    const body = operatorContract.updateStore.body;
    expect(body.safeParse({ store: { status: 'frozen', plan_expires_at: null } }).success).toBe(true);
    expect(body.safeParse({ store: { status: 'paused' } }).success).toBe(false);
  });

  it('take an app of one of the three kinds, with scopes', () => {
    const body = operatorContract.createApp.body;
    expect(body.safeParse({ app: { name: 'A', kind: 'private', scopes: ['read_products'], store_handle: 'demo' } }).success).toBe(true);
    expect(body.safeParse({ app: { name: 'A', kind: 'internal', scopes: [] } }).success).toBe(false);
    expect(body.safeParse({ app: { name: 'A', kind: 'public' } }).success).toBe(false);
  });

  it("answer a private app's creation with its token beside the app", () => {
    const app = {
      id: '1',
      name: 'A',
      kind: 'private',
      app_key: 'k',
      app_secret: 's',
      scopes: ['read_products'],
      redirect_urls: [],
      store_handle: 'demo',
      created_at: '2026-11-22T12:05:01+08:00',
      updated_at: '2026-11-22T12:05:01+08:00',
    };
    expect(ZOperatorApp.parse(app)).toEqual(app);
    const answer = { app, access_token: 't', expires_at: '2029-11-22T12:05:01+08:00' };
    expect(operatorContract.createApp.responses[201].parse(answer)).toEqual(answer);
    expect(operatorContract.createApp.responses[201].parse({ app: { ...app, kind: 'custom', store_handle: null } })).not.toHaveProperty(
      'access_token',
    );
  });

  it('take install scopes unwrapped', () => {
    expect(operatorContract.installApp.body.safeParse({ scopes: ['read_products'] }).success).toBe(true);
    expect(operatorContract.installApp.body.safeParse({ app: { scopes: ['read_products'] } }).success).toBe(false);
  });

  it('create one product or 1..1000 products', () => {
    expect(ZProductsCreate.safeParse({ product: { title: 'One' } }).success).toBe(true);
    expect(ZProductsCreate.safeParse({ products: [{ title: 'A' }, { title: 'B' }] }).success).toBe(true);
    expect(ZProductsCreate.safeParse({ products: [] }).success).toBe(false);
    expect(ZProductsCreate.safeParse({ products: Array.from({ length: 1001 }, () => ({ title: 'x' })) }).success).toBe(false);
    expect(ZProductsCreate.safeParse({ products: [{ title: '' }] }).success).toBe(false);
    expect(ZProductsCreate.safeParse({ title: 'unwrapped' }).success).toBe(false);
  });

  it('update a product with any subset of its fields', () => {
    expect(operatorContract.updateProduct.body.safeParse({ product: { vendor: 'ACME' } }).success).toBe(true);
    expect(operatorContract.updateProduct.body.safeParse({ product: { title: '' } }).success).toBe(false);
  });

  it('set the clock by seconds or to an instant', () => {
    expect(ZClockSet.parse({ advance_seconds: 3600 })).toEqual({ advance_seconds: 3600 });
    expect(ZClockSet.parse({ now: '2026-11-22T00:00:00Z' })).toEqual({ now: '2026-11-22T00:00:00Z' });
    expect(ZClockSet.safeParse({ advance_seconds: '3600' }).success).toBe(false);
    expect(ZClockSet.safeParse({}).success).toBe(false);
  });

  it('answer a store with a nullable plan expiry', () => {
    const store = {
      id: '1',
      handle: 'demo',
      name: 'Demo',
      domain: 'demo.localhost',
      email: 'owner@example.com',
      customer_email: '',
      currency: 'USD',
      iana_timezone: 'Asia/Shanghai',
      status: 'active',
      plan_expires_at: null,
      created_at: '2026-11-22T12:05:01+08:00',
      updated_at: '2026-11-22T12:05:01+08:00',
    };
    expect(ZOperatorStore.parse(store)).toEqual(store);
    expect(ZOperatorStore.safeParse({ ...store, status: 'expired' }).success).toBe(false);
  });
});

describe('getShop route (decisions §3.6)', () => {
  it('is GET /admin/openapi/:version/merchants/shop.json needing read_store_information', () => {
    expect(adminContract.getShop.method).toBe('GET');
    expect(adminContract.getShop.path).toBe('/admin/openapi/:version/merchants/shop.json');
    expect(adminContract.getShop.metadata).toEqual({ auth: 'app', scope: 'read_store_information' });
  });

  it('answers the shop under "data" with the fields of decisions §3.6', () => {
    const shop = {
      id: '1',
      name: 'Demo',
      handle: 'demo',
      domain: 'demo.localhost',
      email: 'owner@example.com',
      customer_email: 'help@example.com',
      currency: 'USD',
      iana_timezone: 'Asia/Shanghai',
      biz_store_status: 'active',
      created_at: '2026-11-22T12:05:01+08:00',
      updated_at: '2026-11-22T12:05:01+08:00',
    };
    expect(adminContract.getShop.responses[200].parse({ data: shop })).toEqual({ data: shop });
    expect(Object.keys(ZShop.shape)).toEqual(Object.keys(shop));
    expect(adminContract.getShop.responses[200].safeParse(shop).success).toBe(false);
  });
});
