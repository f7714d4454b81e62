import type { ListedProduct, Product, Shop } from '@platform/contract';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { createClient, createSender, resolveBaseUrl, type ProductsFor } from './client';
import { PlatformApiError } from './errors';

const VERSION = 'v20260901';
const LISTING = `/admin/openapi/${VERSION}/products/products.json`;
const TOKEN = 'test-token';

const shop: Shop = {
  id: '1',
  name: 'Demo',
  handle: 'demo',
  domain: 'demo.myplatform.com',
  email: 'owner@example.com',
  customer_email: 'help@example.com',
  currency: 'USD',
  iana_timezone: 'Asia/Shanghai',
  biz_store_status: 'active',
  created_at: '2026-11-22T12:05:01+08:00',
  updated_at: '2026-11-22T12:05:01+08:00',
};

/**
 * A stand-in for the API: three pages of products behind link headers. The link URLs carry a
 * parameter (`as=is`) and an order the SDK would never build, so a request that arrives with them
 * proves the SDK sent the URL as it stands.
 */
const PAGES: Record<string, { ids: string[]; links: string[] }> = {
  first: { ids: ['1', '2'], links: ['p2; rel="next"'] },
  p2: { ids: ['3', '4'], links: ['p3; rel="next"', 'p1; rel="prev"'] },
  p3: { ids: ['5'], links: ['p2; rel="previous"'] },
  p1: { ids: ['1', '2'], links: ['p2; rel="next"'] },
};

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
}

let server: Server;
let origin: string;
let seen: Seen[] = [];
let trace = 0;

const pageUrl = (cursor: string) => `${origin}${LISTING}?as=is&page_info=${cursor}&limit=2`;

function answer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', traceId: `trace-${++trace}`, ...headers });
  res.end(JSON.stringify(body));
}

function handle(req: IncomingMessage, res: ServerResponse, body: string) {
  seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, contentType: req.headers['content-type'], body });
  const url = new URL(req.url ?? '/', origin);
  const token = req.headers.authorization?.replace(/^Bearer /, '');
  if (url.pathname === '/echo') return answer(res, 200, { ok: true });
  if (token === 'expired') return answer(res, 401, { errors: 'The access token has expired' });
  if (token === 'throttled') return answer(res, 429, { errors: 'Too many requests' }, { 'Retry-After': '2' });
  if (token === 'behind-proxy') {
    res.writeHead(502, 'Bad Gateway', { 'content-type': 'text/html' });
    return res.end('<html>502</html>');
  }
  if (token !== TOKEN && token !== 'breaks-later') return answer(res, 401, { errors: 'Invalid API key or access token' });
  if (url.pathname === `/admin/openapi/${VERSION}/merchants/shop.json`) return answer(res, 200, { data: shop });
  if (url.pathname !== LISTING) return answer(res, 404, { errors: 'Not Found' });
  const cursor = url.searchParams.get('page_info') ?? 'first';
  if (cursor === 'broken') return answer(res, 500, { errors: 'Internal Server Error' });
  const page = PAGES[cursor];
  if (!page) return answer(res, 400, { errors: 'page_info: is invalid' });
  const links = token === 'breaks-later' ? [`<${pageUrl('broken')}>; rel="next"`] : page.links.map((l) => `<${pageUrl(l.split(';')[0]!)}>;${l.split(';')[1]}`);
  return answer(res, 200, { products: page.ids.map((id) => ({ id, title: `Product ${id}` })) }, links.length ? { link: links.join(', ') } : {});
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => handle(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen = [];
});

const client = (accessToken = TOKEN) => createClient({ baseUrl: `${origin}/`, accessToken, apiVersion: VERSION });

describe('products.list', () => {
  it('GETs the contract path with the bearer token and returns the page, its links and traceId', async () => {
    const page = await client().products.list({ limit: 2 });
    expect(page.products.map((p) => p.id)).toEqual(['1', '2']);
    expect(page.link).toEqual({ next: pageUrl('p2') });
    expect(page.traceId).toMatch(/^trace-\d+$/);
    expect(seen).toEqual([{ method: 'GET', url: `${LISTING}?limit=2`, authorization: `Bearer ${TOKEN}`, contentType: undefined, body: '' }]);
  });

  it('sends since_id, page_info and fields (an array joined by commas)', async () => {
    await client().products.list({ limit: 2, since_id: '0', fields: ['title', 'handle'] });
    await client().products.list({ page_info: 'p2', fields: 'title' });
    expect(seen.map((s) => s.url)).toEqual([`${LISTING}?limit=2&since_id=0&fields=title%2Chandle`, `${LISTING}?page_info=p2&fields=title`]);
  });

  it('parses rel="prev" as the previous page (decisions §6.5)', async () => {
    const page = await client().products.list({ page_info: 'p2' });
    expect(page.link).toEqual({ next: pageUrl('p3'), previous: pageUrl('p1') });
  });

  it('parses rel="previous" on the last page, which has no next', async () => {
    const page = await client().products.list({ page_info: 'p3' });
    expect(page.link).toEqual({ previous: pageUrl('p2') });
  });
});

describe('products.page', () => {
  it('GETs a link URL as it stands, with the same auth', async () => {
    const previous = (await client().products.list({ page_info: 'p3' })).link.previous!;
    const page = await client().products.page(previous);
    expect(page.products.map((p) => p.id)).toEqual(['3', '4']);
    expect(seen[1]).toMatchObject({ url: `${LISTING}?as=is&page_info=p2&limit=2`, authorization: `Bearer ${TOKEN}` });
  });

  it('refuses a link to another origin instead of sending the token there', async () => {
    const elsewhere = `http://attacker.example${LISTING}?page_info=p2&limit=2`;
    await expect(client().products.page(elsewhere)).rejects.toThrow(/not the client's origin/);
    await expect(client().products.page(pageUrl('p2').replace('127.0.0.1', 'localhost'))).rejects.toThrow(TypeError);
    expect(seen).toEqual([]);
  });
});

describe('products.iterate', () => {
  it('yields every product across the pages, following each next link as it stands', async () => {
    const ids: string[] = [];
    for await (const product of client().products.iterate({ limit: 2 })) ids.push(product.id);
    expect(ids).toEqual(['1', '2', '3', '4', '5']);
    expect(seen.map((s) => s.url)).toEqual([`${LISTING}?limit=2`, `${LISTING}?as=is&page_info=p2&limit=2`, `${LISTING}?as=is&page_info=p3&limit=2`]);
    expect(new Set(seen.map((s) => s.authorization))).toEqual(new Set([`Bearer ${TOKEN}`]));
  });

  it('throws the failure of a later page after yielding the earlier ones', async () => {
    const ids: string[] = [];
    const run = async () => {
      for await (const product of client('breaks-later').products.iterate()) ids.push(product.id);
    };
    const error = await run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformApiError);
    expect((error as PlatformApiError).status).toBe(500);
    expect(ids).toEqual(['1', '2']);
  });
});

describe('shop.get', () => {
  it('returns the data of GET /merchants/shop.json', async () => {
    expect(await client().shop.get()).toEqual(shop);
    expect(seen[0]?.url).toBe(`/admin/openapi/${VERSION}/merchants/shop.json`);
  });
});

describe('failures', () => {
  it('throw PlatformApiError with status, the errors message and the traceId', async () => {
    const error = await client('expired').products.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformApiError);
    expect(error).toMatchObject({ status: 401, errors: 'The access token has expired', traceId: expect.stringMatching(/^trace-\d+$/) });
  });

  it('carry Retry-After of a 429 as seconds', async () => {
    const error = await client('throttled').shop.get().catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, errors: 'Too many requests', retryAfter: 2 });
  });

  it("use the status text when the answer is not the API's JSON", async () => {
    const error = await client('behind-proxy').products.list().catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502, errors: 'Bad Gateway', traceId: undefined });
  });

  it('let network errors through as they are', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await createClient({ baseUrl: `http://127.0.0.1:${port}`, accessToken: TOKEN, apiVersion: VERSION })
      .products.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).not.toBeInstanceOf(PlatformApiError);
  });
});

describe(createSender.name, () => {
  it('sends a JSON body with Content-Type application/json; charset=utf-8', async () => {
    const send = createSender({ accessToken: TOKEN });
    await send('POST', `${origin}/echo`, { metafield: { key: 'ü' } });
    expect(seen[0]).toMatchObject({ method: 'POST', contentType: 'application/json; charset=utf-8', body: '{"metafield":{"key":"ü"}}' });
  });
});

describe(resolveBaseUrl.name, () => {
  it('puts https in front of a store domain', () => {
    expect(resolveBaseUrl({ storeDomain: 'demo.myplatform.com' })).toBe('https://demo.myplatform.com');
  });

  it('keeps a store domain that already has a scheme', () => {
    expect(resolveBaseUrl({ storeDomain: 'http://demo.localhost:3000' })).toBe('http://demo.localhost:3000');
  });

  it('uses baseUrl as is, without a trailing slash', () => {
    expect(resolveBaseUrl({ baseUrl: 'http://127.0.0.1:3000/' })).toBe('http://127.0.0.1:3000');
    expect(resolveBaseUrl({ baseUrl: 'https://gateway.example/platform' })).toBe('https://gateway.example/platform');
  });

  it('wants exactly one of storeDomain and baseUrl', () => {
    expect(() => resolveBaseUrl({})).toThrow(/exactly one/);
    expect(() => resolveBaseUrl({ storeDomain: 'demo.myplatform.com', baseUrl: 'http://127.0.0.1:3000' })).toThrow(/exactly one/);
  });

  it('refuses something that is not a URL', () => {
    expect(() => resolveBaseUrl({ baseUrl: '127.0.0.1:3000 /x' })).toThrow(TypeError);
  });
});

describe(createClient.name, () => {
  it('sends a store-domain client to https://{domain}/admin/openapi/{version}/...', async () => {
    const urls: string[] = [];
    const recordingFetch = (async (url: string) => {
      urls.push(url);
      return new Response(JSON.stringify({ data: shop }), { headers: { 'content-type': 'application/json' } });
    }) as unknown as typeof fetch;
    await createClient({ storeDomain: 'demo.myplatform.com', accessToken: TOKEN, apiVersion: VERSION, fetch: recordingFetch }).shop.get();
    expect(urls).toEqual([`https://demo.myplatform.com/admin/openapi/${VERSION}/merchants/shop.json`]);
  });

  it('refuses an empty token or version rather than calling the API', () => {
    expect(() => createClient({ baseUrl: origin, accessToken: '', apiVersion: VERSION })).toThrow(/accessToken/);
    expect(() => createClient({ baseUrl: origin, accessToken: TOKEN, apiVersion: '' })).toThrow(/apiVersion/);
  });

  it('types listed products by the fields asked for', async () => {
    expectTypeOf<ProductsFor<Record<never, never>>>().toEqualTypeOf<Product>();
    expectTypeOf<ProductsFor<{ readonly fields: readonly ['title', 'handle'] }>>().toEqualTypeOf<Pick<Product, 'id' | 'title' | 'handle'>>();
    expectTypeOf<ProductsFor<{ fields: string }>>().toEqualTypeOf<ListedProduct>();
    expectTypeOf<ProductsFor<{ fields?: string[] }>>().toEqualTypeOf<ListedProduct>();
    const page = await client().products.list({ fields: ['title'] });
    expectTypeOf(page.products).toEqualTypeOf<Pick<Product, 'id' | 'title'>[]>();
    expect(page.products[0]).toEqual({ id: '1', title: 'Product 1' });
  });
});
