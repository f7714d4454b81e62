import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, freshDatabase, listen, startPlatform, storeWithApp, testConfig, VERSION, type TestPlatform } from './harness';

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

/**
 * decisions §7.4: with REDIS_URL, every replica shares one bucket per (app, store). Runs where a
 * Redis server is given (TEST_REDIS_URL: CI starts one beside PostgreSQL).
 */
describe.runIf(process.env.TEST_REDIS_URL)('rate limit shared through Redis (decisions §7.4)', () => {
  it('counts the calls of two API replicas in one bucket', async () => {
    const database = await freshDatabase();
    const env = {
      REDIS_URL: process.env.TEST_REDIS_URL!,
      PLATFORM_RATE_LIMIT_CAPACITY: '6',
      PLATFORM_RATE_LIMIT_LEAK_PER_SECOND: '0.01',
    };
    const config = testConfig(database.url, env);
    const first = await listen(config);
    const second = await listen(config);
    try {
      const handle = `shared-${Date.now()}`;
      const { token } = await storeWithApp(first, handle);
      const listing = (replica: TestPlatform) => call(`${replica.origin}/admin/openapi/${VERSION}/products/products.json`, { token });
      const used: string[] = [];
      for (const replica of [first, second, first, second, first, second]) {
        const r = await listing(replica);
        expect(r.status).toBe(200);
        used.push(r.headers.get('x-platform-api-call-limit')!);
      }
      expect(used).toEqual(['1/6', '2/6', '3/6', '4/6', '5/6', '6/6']);
      for (const replica of [first, second]) {
        const refused = await listing(replica);
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    } finally {
      await first.close();
      await second.close();
      await database.drop();
    }
  });
});

describe('rate limit with Redis unreachable (decisions §7.4, issue 15 degraded modes)', () => {
  it('falls back to a bucket in the replica (429s, never unlimited) and names redis on /readyz', async () => {
    const unreachable = await startPlatform({
      REDIS_URL: 'redis://127.0.0.1:1',
      PLATFORM_RATE_LIMIT_CAPACITY: '3',
      PLATFORM_RATE_LIMIT_LEAK_PER_SECOND: '0.01',
    });
    try {
      const { admin } = await storeWithApp(unreachable, 'no-redis');
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await admin('/products/products.json')).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const ready = await call(`${unreachable.origin}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ready', degraded: ['redis'] });
    } finally {
      await unreachable.close();
    }
  });
});
