import type { SharedTokenStore, StoredToken } from '@platform/sdk';

/** A node-redis client (the `redis` package, 4 or later): raw commands through `sendCommand`. */
export interface NodeRedisLike {
  sendCommand(args: string[]): Promise<unknown>;
}
/** An ioredis client: raw commands through `call`. */
export interface IoRedisLike {
  call(command: string, ...args: string[]): Promise<unknown>;
}

export interface RedisTokenStoreOptions {
  /** `redis://...`: the store connects with the `redis` package (an optional peer: `npm i redis`)... */
  url?: string;
  /** ...or a connected client of your own (node-redis or ioredis); `close()` leaves it open. */
  client?: NodeRedisLike | IoRedisLike;
  /** Prefix of every key (default `platform-sdk:token:`): the token is `<prefix><handle>`. */
  prefix?: string;
  /** A refresh lock whose holder died frees itself after this (default 30 s). */
  lockTtlMs?: number;
  /** How long a process waits for another's refresh before giving up with an error (default 60 s). */
  lockWaitMs?: number;
}

// Deletes the lock only if it is still ours: after a TTL expiry another process may hold it.
const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A `TokenStore` in Redis, for apps that run several processes: every process sees the tokens the
 * others stored, and a refresh takes a lock (`SET NX PX`, released only by its holder) so one process
 * refreshes while the others wait for its token. Tokens are bearer credentials stored as given: keep
 * the Redis private to the app (ACLs, TLS with `rediss://`).
 */
export function redisTokenStore(options: RedisTokenStoreOptions): SharedTokenStore {
  if ((options.url === undefined) === (options.client === undefined))
    throw new TypeError('redisTokenStore: give exactly one of url or client');
  const prefix = options.prefix ?? 'platform-sdk:token:';
  const lockTtlMs = options.lockTtlMs ?? 30_000;
  const lockWaitMs = options.lockWaitMs ?? 60_000;
  let owned: { quit?(): Promise<unknown>; close?(): Promise<unknown> } | undefined;

  // Connected on first use, so importing this entry without the peer installed costs nothing.
  const ready = (async (): Promise<(...args: string[]) => Promise<unknown>> => {
    let client = options.client;
    if (!client) {
      let createClient: (o: {
        url: string;
      }) => NodeRedisLike & { connect(): Promise<unknown>; on(e: string, f: (error: unknown) => void): unknown };
      try {
        ({ createClient } = (await import('redis')) as unknown as { createClient: typeof createClient });
      } catch {
        throw new Error('@platform/sdk/token-store-redis needs the redis package (or pass your own client): npm install redis');
      }
      const created = createClient({ url: options.url! });
      // node-redis reports connection trouble as events and reconnects by itself; commands fail meanwhile.
      created.on('error', () => undefined);
      await created.connect();
      owned = created as typeof owned;
      client = created;
    }
    const c = client;
    // ioredis has a sendCommand too (taking its own Command objects): `call` tells it apart.
    if (typeof (c as IoRedisLike).call === 'function') return (command, ...args) => (c as IoRedisLike).call(command!, ...args);
    return (...args) => (c as NodeRedisLike).sendCommand(args);
  })();
  ready.catch(() => undefined);

  const key = (handle: string) => `${prefix}${handle}`;

  return {
    async get(handle) {
      const raw = await (await ready)('GET', key(handle));
      return typeof raw === 'string' ? (JSON.parse(raw) as StoredToken) : undefined;
    },
    async set(token) {
      const { handle, accessToken, expiresAt, scope } = token;
      await (
        await ready
      )('SET', key(handle), JSON.stringify({ handle, accessToken, expiresAt, scope }));
    },
    async delete(handle) {
      await (
        await ready
      )('DEL', key(handle));
    },
    async withLock(handle, fn) {
      const command = await ready;
      const lock = `${key(handle)}:refresh-lock`;
      const holder = globalThis.crypto.randomUUID();
      const deadline = Date.now() + lockWaitMs;
      for (let wait = 10; (await command('SET', lock, holder, 'NX', 'PX', String(lockTtlMs))) !== 'OK'; wait = Math.min(wait * 2, 200)) {
        if (Date.now() >= deadline) throw new Error(`redisTokenStore: the refresh lock of ${handle} was held longer than ${lockWaitMs} ms`);
        await sleep(wait);
      }
      try {
        return await fn();
      } finally {
        await command('EVAL', RELEASE, '1', lock, holder);
      }
    },
    async close() {
      if (owned) await (owned.close ?? owned.quit)!.call(owned);
      else await ready.catch(() => undefined);
    },
  };
}
