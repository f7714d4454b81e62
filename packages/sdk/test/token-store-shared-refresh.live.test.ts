/*
 * Refresh is single-flight across processes that share a token store (Redis, PostgreSQL): against
 * the real API, three OAuth helpers, each with its own store instance and connection (what three
 * processes of an app have; nothing else is shared), find the stored token due for refresh at once,
 * and the API sees one refresh, whose token all of them use.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOAuth, type SharedTokenStore } from '../src/index';
import { pgTokenStore } from '../src/token-store-pg';
import { redisTokenStore } from '../src/token-store-redis';
import { startLiveServer, VERSION, viaLoopback, type LiveServer } from './live-server';
import { freshPgDatabase } from './pg-database';
import { startTestRedis, type TestRedis } from './redis-server';

let server: LiveServer;
let redis: TestRedis;
let app: { id: string; app_key: string; app_secret: string };
let stores = 0;

beforeAll(async () => {
  // The manual clock, moved by the test: the refreshed token is not due again (see below).
  [server, redis] = await Promise.all([startLiveServer({ PLATFORM_CLOCK: 'manual' }), startTestRedis()]);
  const created = await server.operator('POST', '/apps', {
    app: { name: 'Shared refresh', kind: 'public', scopes: ['read_store_information'], redirect_urls: ['https://app.example/callback'] },
  });
  app = created.body.app;
}, 120_000);
afterAll(async () => {
  await server?.close();
  await redis?.close();
});

async function refreshOnceAcross(makeStore: () => SharedTokenStore) {
  const handle = `shared-${(stores += 1)}`;
  await server.createStore(handle);
  const install = await server.operator('POST', `/stores/${handle}/apps/${app.id}/install`, { scopes: ['read_store_information'] });
  const serverNow = Date.parse((await server.operator('GET', '/clock')).body.now);
  // Every process reads one clock: the service's, moved 9.5 hours on once the first token exists.
  // With a margin of one hour only that token is due (half an hour left); the refreshed one has ten
  // hours, so a process that looks after the refresh uses it instead of refreshing again.
  let clockNow = serverNow;
  const clock = { now: () => clockNow, sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) };
  const processes = Array.from({ length: 3 }, () => {
    const store = makeStore();
    const refreshes: string[] = [];
    const oauth = createOAuth({
      appKey: app.app_key,
      appSecret: app.app_secret,
      storeOrigin: (h) => `http://${h}.localhost:${server.port}`,
      store,
      clock,
      refreshMarginMs: 3600_000,
      fetch: (input, init) => {
        if (String(input).endsWith('/token/refresh')) refreshes.push(String(input));
        return viaLoopback(input, init);
      },
    });
    return { store, oauth, refreshes };
  });
  // Each store connected (and its table made) first, so the calls below start together.
  await Promise.all(processes.map((p) => p.store.get(handle)));
  const first = await processes[0]!.oauth.exchangeCode(handle, install.body.code);
  await server.operator('POST', '/clock', { advance_seconds: 9.5 * 3600 });
  clockNow = serverNow + 9.5 * 3600_000;

  const tokens = await Promise.all(
    processes.flatMap(({ oauth }) => [oauth.accessToken(handle), oauth.accessToken(handle), oauth.accessToken(handle)]),
  );

  expect(processes.map((p) => p.refreshes.length).reduce((a, b) => a + b)).toBe(1);
  expect(new Set(tokens).size).toBe(1);
  expect(tokens[0]).not.toBe(first.accessToken);
  expect((await processes[2]!.store.get(handle))?.accessToken).toBe(tokens[0]);
  const shop = await fetch(`${server.origin}/admin/openapi/${VERSION}/merchants/shop.json`, {
    headers: { authorization: `Bearer ${tokens[0]}` },
  });
  expect(shop.status).toBe(200);
  await Promise.all(processes.map((p) => p.store.close()));
}

describe('single-flight refresh across processes sharing a store', () => {
  it('through Redis', async () => {
    await refreshOnceAcross(() => redisTokenStore({ url: redis.url, prefix: `${redis.prefix}shared:` }));
  });

  describe.runIf(process.env.TEST_DATABASE_URL)('on PostgreSQL', () => {
    let database: Awaited<ReturnType<typeof freshPgDatabase>>;
    beforeAll(async () => {
      database = await freshPgDatabase();
    });
    afterAll(() => database?.drop());

    it('through PostgreSQL', async () => {
      await refreshOnceAcross(() => pgTokenStore({ connectionString: database.url }));
    });
  });
});
