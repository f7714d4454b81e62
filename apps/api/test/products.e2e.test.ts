import { parseLinkHeader } from '@platform/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, operator, startPlatform, storeWithApp, VERSION, type Answer, type TestPlatform } from './harness';

let t: TestPlatform;
let token: string;
let ids: string[];
const TOTAL = 2500;

const listing = (query = '') => `${t.origin}/admin/openapi/${VERSION}/products/products.json${query}`;

beforeAll(async () => {
  t = await startPlatform({ PLATFORM_RATE_LIMIT_CAPACITY: '100000' });
  ({ token } = await storeWithApp(t, 'catalogue'));
  ids = await operator(t).createProducts(
    'catalogue',
    Array.from({ length: TOTAL }, (_, i) => ({ title: `Product ${i + 1}`, variants: [{ sku: `SKU-${i + 1}`, price: '9.99' }] })),
  );
});
afterAll(() => t.close());

describe('product listing pagination (spec Pagination, decisions §6)', () => {
  it('visits every product exactly once following next, then previous back to the start', async () => {
    const forward: string[] = [];
    let url: string | undefined = listing('?limit=100');
    let pages = 0;
    let lastLink: ReturnType<typeof parseLinkHeader> = {};
    const firstPage = await call(url, { token });
    expect(parseLinkHeader(firstPage.headers.get('link')).previous).toBeUndefined();
    while (url) {
      const r = await call(url, { token });
      expect(r.status).toBe(200);
      forward.push(...r.body.products.map((p: { id: string }) => p.id));
      lastLink = parseLinkHeader(r.headers.get('link'));
      pages++;
      if (!lastLink.next) break;
      expect(lastLink.next.startsWith(`${t.origin}/admin/openapi/${VERSION}/products/products.json?`)).toBe(true);
      url = lastLink.next;
    }
    expect(pages).toBe(25);
    expect(forward).toEqual(ids);
    // The last page carries previous only.
    expect(lastLink.next).toBeUndefined();
    expect(lastLink.previous).toBeDefined();

    const backward: string[][] = [];
    let prev: string | undefined = lastLink.previous;
    while (prev) {
      const r = await call(prev, { token });
      expect(r.status).toBe(200);
      backward.unshift(r.body.products.map((p: { id: string }) => p.id));
      const link = parseLinkHeader(r.headers.get('link'));
      expect(link.next).toBeDefined();
      prev = link.previous;
    }
    expect([...backward.flat(), ...forward.slice(-100)]).toEqual(ids);
  });

  it('sends no link header when everything fits on one page', async () => {
    const r = await call(listing(`?since_id=${ids[TOTAL - 3]}`), { token });
    expect(r.body.products.map((p: { id: string }) => p.id)).toEqual(ids.slice(-2));
    expect(r.headers.get('link')).toBeNull();
  });

  it('defaults to 50 products in ascending id order', async () => {
    const r = await call(listing(), { token });
    expect(r.body.products.map((p: { id: string }) => p.id)).toEqual(ids.slice(0, 50));
  });

  it('returns products with ids greater than since_id, compared numerically', async () => {
    const r = await call(listing(`?since_id=${ids[9]}&limit=3`), { token });
    expect(r.body.products.map((p: { id: string }) => p.id)).toEqual(ids.slice(10, 13));
  });

  it('puts page_info and limit (and fields when given) in link URLs, and keeps the first request filters', async () => {
    const r = await call(listing(`?since_id=${ids[99]}&limit=5&fields=title`), { token });
    const next = new URL(parseLinkHeader(r.headers.get('link')).next!);
    expect(next.searchParams.get('limit')).toBe('5');
    expect(next.searchParams.get('fields')).toBe('title');
    expect(next.searchParams.get('page_info')).toBeTruthy();
    expect(next.searchParams.get('since_id')).toBeNull();
    // since_id sent with page_info is ignored: the cursor carries the first request's filters.
    next.searchParams.set('since_id', ids[1999]!);
    const page2 = await call(next.toString(), { token });
    expect(page2.body.products.map((p: { id: string }) => p.id)).toEqual(ids.slice(105, 110));
    expect(Object.keys(page2.body.products[0]).sort()).toEqual(['id', 'title']);
    const back = await call(parseLinkHeader(page2.headers.get('link')).previous!, { token });
    expect(back.body.products.map((p: { id: string }) => p.id)).toEqual(ids.slice(100, 105));
    expect(parseLinkHeader(back.headers.get('link')).previous).toBeUndefined();
  });

  it('lets limit change between pages', async () => {
    const r = await call(listing('?limit=2'), { token });
    const next = new URL(parseLinkHeader(r.headers.get('link')).next!);
    next.searchParams.set('limit', '3');
    const page2 = await call(next.toString(), { token });
    expect(page2.body.products.map((p: { id: string }) => p.id)).toEqual(ids.slice(2, 5));
  });

  it.each(['0', '1001', 'abc', '', '-1', '2.5'])('400s limit=%s', async (limit) => {
    const r = await call(listing(`?limit=${limit}`), { token });
    expect(r.status).toBe(400);
    expect(r.body.errors).toMatch(/limit/);
  });

  it('accepts limit=1000', async () => {
    const r = await call(listing('?limit=1000'), { token });
    expect(r.body.products).toHaveLength(1000);
  });

  it('400s a tampered page_info', async () => {
    const r = await call(listing('?limit=2'), { token });
    const next = new URL(parseLinkHeader(r.headers.get('link')).next!);
    const cursor = next.searchParams.get('page_info')!;
    const flipped = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
    for (const bad of [flipped, 'garbage', cursor + 'x', '']) {
      next.searchParams.set('page_info', bad);
      const answer = await call(next.toString(), { token });
      expect(answer.status).toBe(400);
      expect(answer.body.errors).toMatch(/page_info/);
    }
  });

  it("400s another store's cursor", async () => {
    const other = await storeWithApp(t, 'other-catalogue');
    await operator(t).createProducts('other-catalogue', [{ title: 'a' }, { title: 'b' }, { title: 'c' }]);
    const r = await other.admin('/products/products.json?limit=1');
    const next = parseLinkHeader(r.headers.get('link')).next!;
    const foreign = new URL(next);
    const answer = await call(listing(`?page_info=${foreign.searchParams.get('page_info')}`), { token });
    expect(answer.status).toBe(400);
  });

  it('400s a since_id that is not a non-negative integer', async () => {
    const r = await call(listing('?since_id=abc'), { token });
    expect(r.status).toBe(400);
    expect(r.body.errors).toMatch(/since_id/);
  });

  it('returns only the requested fields, always with id, ignoring unknown names', async () => {
    const r = await call(listing('?limit=2&fields=title,variants,nonsense'), { token });
    for (const p of r.body.products) expect(Object.keys(p).sort()).toEqual(['id', 'title', 'variants']);
    expect(r.body.products[0].variants[0].sku).toBe('SKU-1');
  });

  it('renders the full product shape of the spec', async () => {
    const r = await call(listing('?limit=1'), { token });
    const p = r.body.products[0];
    for (const key of [
      'id',
      'title',
      'handle',
      'path',
      'body_html',
      'vendor',
      'product_type',
      'status',
      'tags',
      'published_scope',
      'product_behavior',
      'is_gift_card',
      'published_at',
      'created_at',
      'updated_at',
      'images',
      'media',
      'options',
      'variants',
    ]) {
      expect(p).toHaveProperty(key);
    }
    const v = p.variants[0];
    expect(v).toMatchObject({ product_id: p.id, sku: 'SKU-1', price: '9.99', position: 1 });
    expect(typeof v.inventory_item_id).toBe('string');
    expect(p.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
  });
});

describe('times in the store time zone (decisions §3.3)', () => {
  it('renders +08:00 for a store in Asia/Shanghai', async () => {
    const op = operator(t);
    await op.createStore('shanghai', { iana_timezone: 'Asia/Shanghai' });
    const app = await op.createPrivateApp('shanghai', ['read_products', 'read_store_information']);
    await op.createProducts('shanghai', [{ title: 'Tea' }]);
    const r = await call(listing(), { token: app.access_token });
    expect(r.body.products[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+08:00$/);
    const shop = await call(`${t.origin}/admin/openapi/${VERSION}/merchants/shop.json`, { token: app.access_token });
    expect(shop.body.data.iana_timezone).toBe('Asia/Shanghai');
    expect(shop.body.data.created_at).toMatch(/\+08:00$/);
  });
});

describe('PATCH a product (decisions §10)', () => {
  it('changes the product and bumps updated_at', async () => {
    const before = await call(listing(`?since_id=${BigInt(ids[0]!) - 1n}&limit=1`), { token });
    await operator(t).advanceClock(10);
    const r = await operator(t).call(`/stores/catalogue/products/${ids[0]}`, { method: 'PATCH', body: { product: { title: 'Renamed' } } });
    expect(r.status).toBe(200);
    expect(r.body.product.title).toBe('Renamed');
    expect(new Date(r.body.product.updated_at).getTime()).toBeGreaterThan(new Date(before.body.products[0].updated_at).getTime());
    expect(r.body.product.created_at).toBe(before.body.products[0].created_at);
    expect(r.body.product.variants[0].id).toBe(before.body.products[0].variants[0].id);
  });

  it('404s an unknown product, and an id no product can have', async () => {
    for (const id of ['999999999', '9999999999999999999', 'abc']) {
      const r = await operator(t).call(`/stores/catalogue/products/${id}`, { method: 'PATCH', body: { product: { title: 'x' } } });
      expect(r.status).toBe(404);
    }
  });
});

describe('pages under 8 MB (decisions §3.4)', () => {
  it('shrinks a page of 200 KB products below 8 MB and still yields every product through next', async () => {
    const big = await storeWithApp(t, 'big-bodies');
    const body = `<p>${'x'.repeat(200 * 1024)}</p>`;
    const bigIds: string[] = [];
    for (let batch = 0; batch < 3; batch++) {
      // 20 products of 200 KB a request keeps each request body under its own 8 MB cap.
      const products = Array.from({ length: 20 }, (_, i) => ({ title: `Big ${batch * 20 + i}`, body_html: body }));
      bigIds.push(...(await operator(t).createProducts('big-bodies', products)));
    }
    const seen: string[] = [];
    let url: string | undefined = `${t.origin}/admin/openapi/${VERSION}/products/products.json?limit=250`;
    let pages = 0;
    while (url) {
      const r: Answer = await call(url, { token: big.token });
      expect(r.status).toBe(200);
      expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(8_000_000);
      seen.push(...r.body.products.map((p: { id: string }) => p.id));
      url = parseLinkHeader(r.headers.get('link')).next;
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(bigIds);
  });
});
