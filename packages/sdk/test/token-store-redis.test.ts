/* redisTokenStore against a real Redis (test/redis-server.ts), through node-redis and through ioredis. */
import { Redis as IoRedis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisTokenStore } from '../src/token-store-redis';
import { tokenStoreContract } from './token-store-contract';
import { startTestRedis, type TestRedis } from './redis-server';

let redis: TestRedis;
const ioClients: IoRedis[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
}, 30_000);
afterAll(async () => {
  for (const client of ioClients) client.disconnect();
  await redis?.close();
});

describe('redisTokenStore with its own node-redis connection (url)', () => {
  tokenStoreContract((options) => redisTokenStore({ url: redis.url, prefix: `${redis.prefix}url:`, ...options }));

  it('takes over the lock of a holder that died once its TTL ran out', async () => {
    const raw = createClient({ url: redis.url });
    await raw.connect();
    // What a process that crashed inside its refresh leaves behind.
    await raw.set(`${redis.prefix}url:crashed:refresh-lock`, 'dead-process', { PX: 200 });
    const store = redisTokenStore({ url: redis.url, prefix: `${redis.prefix}url:`, lockWaitMs: 10_000 });
    expect(await store.withLock('crashed', async () => 'recovered')).toBe('recovered');
    expect(await raw.get(`${redis.prefix}url:crashed:refresh-lock`)).toBeNull();
    await Promise.all([store.close(), raw.close()]);
  });

  it('says what to do with neither or both of url and client', () => {
    expect(() => redisTokenStore({})).toThrow(/exactly one of url or client/);
  });
});

describe('redisTokenStore on an ioredis client of the app', () => {
  tokenStoreContract((options) => {
    const client = new IoRedis(redis.url);
    ioClients.push(client);
    return redisTokenStore({ client, prefix: `${redis.prefix}io:`, ...options });
  });

  it('leaves the app its client open on close', async () => {
    const client = new IoRedis(redis.url);
    ioClients.push(client);
    await redisTokenStore({ client, prefix: `${redis.prefix}io:` }).close();
    expect(await client.ping()).toBe('PONG');
  });
});
