import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operator, startPlatform, type TestPlatform } from './harness';
import { createOAuthApp, installWithToken, readShop } from './oauth.helpers';

let t: TestPlatform;

beforeAll(async () => {
  t = await startPlatform({ PLATFORM_RATE_LIMIT_CAPACITY: '3', PLATFORM_RATE_LIMIT_LEAK_PER_SECOND: '0.01' });
  await operator(t).createStore('one');
  await operator(t).createStore('two');
});
afterAll(async () => t?.close());

describe('rate limit per (app, store) with OAuth tokens (decisions §7.1)', () => {
  it('gives two apps on one store, and one app on two stores, separate buckets', async () => {
    const first = await createOAuthApp(t, 'public');
    const second = await createOAuthApp(t, 'public');
    const firstOnOne = await installWithToken(t, 'one', first);
    const firstOnTwo = await installWithToken(t, 'two', first);
    const secondOnOne = await installWithToken(t, 'one', second);

    const used: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await readShop(t, firstOnOne.accessToken);
      expect(r.status).toBe(200);
      used.push(r.headers.get('x-platform-api-call-limit')!);
    }
    expect(used).toEqual(['1/3', '2/3', '3/3']);
    const refused = await readShop(t, firstOnOne.accessToken);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ errors: 'Too many requests' });

    const otherApp = await readShop(t, secondOnOne.accessToken);
    expect(otherApp.status).toBe(200);
    expect(otherApp.headers.get('x-platform-api-call-limit')).toBe('1/3');
    const otherStore = await readShop(t, firstOnTwo.accessToken);
    expect(otherStore.status).toBe(200);
    expect(otherStore.headers.get('x-platform-api-call-limit')).toBe('1/3');
  });

  it('keeps the bucket of (app, store) when the app gets a new token: it is the same caller', async () => {
    const app = await createOAuthApp(t, 'custom');
    const token = await installWithToken(t, 'two', app);
    for (let i = 0; i < 3; i++) expect((await readShop(t, token.accessToken)).status).toBe(200);
    const again = await installWithToken(t, 'two', app);
    expect((await readShop(t, again.accessToken)).status).toBe(429);
  });
});
