import { createClient, PlatformApiError } from '@platform/sdk';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operator, startPlatform, storeWithApp, VERSION, type TestPlatform } from './harness';

let t: TestPlatform;
let token: string;
let ids: string[];

beforeAll(async () => {
  t = await startPlatform({ PLATFORM_RATE_LIMIT_CAPACITY: '100000' });
  ({ token } = await storeWithApp(t, 'sdk-store'));
  ids = await operator(t).createProducts(
    'sdk-store',
    Array.from({ length: 120 }, (_, i) => ({ title: `SDK ${i}` })),
  );
});
afterAll(() => t.close());

describe('SDK against the real API', () => {
  it('lists one page with its parsed link', async () => {
    const client = createClient({ baseUrl: t.origin, accessToken: token, apiVersion: VERSION });
    const page = await client.products.list({ limit: 50 });
    expect(page.products.map((p) => p.id)).toEqual(ids.slice(0, 50));
    expect(page.link.next).toMatch(/page_info=/);
    expect(page.link.previous).toBeUndefined();
  });

  it('iterates every product following next links as they stand', async () => {
    const client = createClient({ baseUrl: t.origin, accessToken: token, apiVersion: VERSION });
    const seen: string[] = [];
    for await (const product of client.products.iterate({ limit: 25, fields: ['title'] })) seen.push(product.id);
    expect(seen).toEqual(ids);
  });

  it('reaches the store through its domain', async () => {
    // *.localhost does not resolve here, so the app's fetch connects to loopback for any name,
    // as a custom resolver would; the Host header stays the store's domain.
    const agent = new Agent({ connect: { lookup: (_host, _options, done) => done(null, [{ address: '127.0.0.1', family: 4 }]) } });
    const client = createClient({
      storeDomain: `http://sdk-store.localhost:${t.port}`,
      accessToken: token,
      apiVersion: VERSION,
      fetch: ((url: string, init: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher: agent })) as unknown as typeof fetch,
    });
    const shop = await client.shop.get();
    expect(shop.handle).toBe('sdk-store');
  });

  it('throws a typed error with status, errors message and traceId', async () => {
    const client = createClient({ baseUrl: t.origin, accessToken: 'wrong', apiVersion: VERSION });
    const error = await client.products.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformApiError);
    const apiError = error as PlatformApiError;
    expect(apiError.status).toBe(401);
    expect(apiError.errors).toMatch(/access token/i);
    expect(apiError.traceId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
