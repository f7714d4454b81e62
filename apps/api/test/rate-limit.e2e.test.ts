import { spawn, spawnSync } from 'node:child_process';
import { connect, createServer } from 'node:net';
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

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

/**
 * Whether a Redis on the loopback port answers PING, within a second (over a socket of this
 * process: no redis-cli, which hangs under libfaketime like redis-server, scripts/test-at.sh).
 */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    let answer = '';
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), 1000);
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
    socket.on('error', () => done(false));
  });
}

/** A redis-server of this test's own (never the shared TEST_REDIS_URL: this one is stopped with SIGSTOP). */
async function ownRedis() {
  const port = await new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as { port: number };
      probe.close(() => resolve(free));
    });
  });
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; !(await answersPing(port)); i++) {
    if (i > 100) throw new Error('redis-server did not answer PING');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    signal: (signal: NodeJS.Signals) => child.kill(signal),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }),
  };
}

const readyz = async (t: TestPlatform) => (await call(`${t.origin}/readyz`)).body as { status: string; degraded?: string[] };

async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.runIf(hasRedisServer)('rate limit with Redis stalled: connections open, nothing answered (decisions §12.7)', () => {
  it("/readyz names redis while it does not answer, requests take the replica's own bucket, and all is back once Redis answers", async () => {
    const redis = await ownRedis();
    const t = await startPlatform({ REDIS_URL: redis.url, PLATFORM_RATE_LIMIT_CAPACITY: '3', PLATFORM_RATE_LIMIT_LEAK_PER_SECOND: '0.01' });
    try {
      const { admin } = await storeWithApp(t, 'stalled');
      expect((await admin('/products/products.json')).headers.get('x-platform-api-call-limit')).toBe('1/3');
      expect(await readyz(t)).toEqual({ status: 'ready' });

      redis.signal('SIGSTOP');
      // Named by /readyz's own question to Redis, before any request met the stall.
      expect(await readyz(t)).toEqual({ status: 'ready', degraded: ['redis'] });
      // The replica's own bucket (a new one: the shared bucket's count is in Redis): never unlimited.
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await admin('/products/products.json')).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(await readyz(t)).toEqual({ status: 'ready', degraded: ['redis'] });

      redis.signal('SIGCONT');
      // Back without a reconnect (a stalled connection never drops, so none comes).
      await until(async () => (await readyz(t)).degraded === undefined, 10_000, '/readyz stops naming redis');
      const shared = await admin('/products/products.json');
      expect(shared.status).toBe(200);
      expect(shared.headers.get('x-platform-api-call-limit')).toBe('2/3');
    } finally {
      await t.close();
      await redis.close();
    }
  });
});
