import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, storeWithApp, type TestPlatform } from './harness';

let t: TestPlatform;

beforeAll(async () => {
  t = await startPlatform({ PLATFORM_RATE_LIMIT_CAPACITY: '5', PLATFORM_RATE_LIMIT_LEAK_PER_SECOND: '0.01' });
});
afterAll(() => t.close());

describe('rate limit (decisions §7)', () => {
  it('counts calls in X-Platform-Api-Call-Limit and answers 429 with Retry-After past the bucket', async () => {
    const a = await storeWithApp(t, 'limited');
    const used: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await a.admin('/products/products.json');
      expect(r.status).toBe(200);
      used.push(r.headers.get('x-platform-api-call-limit')!);
    }
    expect(used).toEqual(['1/5', '2/5', '3/5', '4/5', '5/5']);
    const refused = await a.admin('/products/products.json');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ errors: 'Too many requests' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('traceid')).toBeTruthy();
  });

  it('keeps one bucket per (app, store)', async () => {
    const b = await storeWithApp(t, 'unlimited');
    expect((await b.admin('/products/products.json')).status).toBe(200);
  });
});
