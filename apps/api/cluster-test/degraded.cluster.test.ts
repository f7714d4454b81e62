import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, operatorAt, quantile, startCluster, startLoad, until, type Answer, type Cluster } from './cluster';

// Issue 15, item 4: what the cluster does when a dependency goes away, and when a replica is told
// to stop. Each case ends with the cluster whole again for the next.
let cluster: Cluster;
let receiver: Server;
const received = new Map<string, number>();

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const id = String(req.headers['x-platform-webhook-id'] ?? '');
    req.resume();
    req.on('end', () => {
      received.set(id, (received.get(id) ?? 0) + 1);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  // Buckets that do not leak during a test: what gets through is exactly the capacity.
  cluster = await startCluster(21300, { PLATFORM_RATE_LIMIT_LEAK_PER_SECOND: '0.01' });
});
afterAll(async () => {
  await cluster?.stop();
  await new Promise((resolve) => receiver.close(resolve));
});

const replicas = () => [cluster.replica(1), cluster.replica(2)];
const listing = (origin: string, token: string) => call(admin(origin, '/products/products.json?limit=1'), { token });
const warnings = (name: string) =>
  cluster
    .log(name)
    .split('\n')
    .filter((line) => line.includes('Redis unreachable')).length;

describe('Redis killed (decisions §7.4)', () => {
  it('each replica falls back to its own bucket, /readyz names redis, one warning; the shared bucket is back with Redis', async () => {
    await cluster.ctl('stop-redis');
    const { token } = await operatorAt(cluster.lb).storeWithApp('no-redis');
    for (const origin of replicas()) {
      const statuses: number[] = [];
      for (let i = 0; i < 45; i++) statuses.push((await listing(origin, token)).status);
      // Never unlimited: each replica's own bucket of 40 fills, then 429.
      expect(statuses.filter((s) => s === 200)).toHaveLength(40);
      expect(statuses.slice(40)).toEqual([429, 429, 429, 429, 429]);
      const ready = await call(`${origin}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ready', degraded: ['redis'] });
    }
    expect([warnings('api1'), warnings('api2')]).toEqual([1, 1]);

    await cluster.ctl('start-redis');
    for (const origin of replicas()) {
      await until(async () => (await call(`${origin}/readyz`)).body?.degraded === undefined, 15_000, `${origin} uses Redis again`);
    }
    const shared = await operatorAt(cluster.lb).storeWithApp('redis-back');
    const answers: Answer[] = [];
    for (let i = 0; i < 30; i++) for (const origin of replicas()) answers.push(await listing(origin, shared.token));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(40);
    expect(answers.slice(40).every((a) => a.status === 429)).toBe(true);
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Redis stalled (SIGSTOP: connections open, nothing answered) under load (decisions §12.7)', () => {
  /** EVALs Redis has run (each rate-limit check that asked it). */
  const evals = async () => Number(/cmdstat_eval:calls=(\d+)/.exec(await cluster.redis('INFO', 'commandstats'))?.[1] ?? 0);

  it('requests take the in-process limit within the budget; /readyz names redis while stalled and stops soon after it answers', async () => {
    const { token } = await operatorAt(cluster.lb).storeWithApp('stalled-redis');
    const send = () => listing(cluster.lb, token);
    // The same load (4 clients without pause) before the stall and during it.
    const before = startLoad(4, send);
    await sleep(3000);
    await until(() => before.answers.length >= 40, 30_000, 'the load answered before the stall');
    await before.stop();
    const evalsBefore = await evals();
    const pausedAt = Date.now();
    await cluster.ctl('pause-redis');
    const during = startLoad(4, send);
    let resumedAt: number;
    try {
      await Promise.all(
        replicas().map((origin) =>
          until(async () => (await call(`${origin}/readyz`)).body?.degraded?.includes('redis'), 5000, `${origin} names redis`),
        ),
      );
      await sleep(Math.max(0, pausedAt + 3000 - Date.now()));
      await until(() => during.answers.length >= 40, 30_000, 'the load answered during the stall');
    } finally {
      await during.stop();
      resumedAt = Date.now();
      await cluster.ctl('resume-redis');
    }
    // Each replica reads Redis again soon after, without waiting for a reconnect (a stalled
    // connection never drops, so none comes: before the fix, never).
    await Promise.all(
      replicas().map((origin) =>
        until(async () => (await call(`${origin}/readyz`)).body?.degraded === undefined, 5000, `${origin} stops naming redis`),
      ),
    );
    // Redis ran what was sent to it while stopped (those PINGs answered first).
    const askedDuringStall = (await evals()) - evalsBefore;

    const answers = [...before.answers, ...during.answers];
    expect([...before.errors, ...during.errors]).toEqual([]);
    expect(answers.filter((a) => a.status !== 200 && a.status !== 429).map((a) => `${a.status} ${a.text}`)).toEqual([]);
    // The first second of the load (new connections, cold caches) is not "normal time".
    const normal = before.answers.filter((a) => a.sentAt > before.answers[0]!.sentAt + 1000).map((a) => a.ms);
    const stalled = during.answers.filter((a) => a.sentAt + a.ms < resumedAt).map((a) => a.ms);
    const seen = JSON.stringify({
      askedDuringStall,
      normal: { n: normal.length, p25: quantile(normal, 0.25), p50: quantile(normal, 0.5), p99: quantile(normal, 0.99) },
      stalled: { n: stalled.length, p25: quantile(stalled, 0.25), p50: quantile(stalled, 0.5), p99: quantile(stalled, 0.99) },
    });
    expect(stalled.length, seen).toBeGreaterThan(20);
    // Only the checks under way when each replica met the stall waited for Redis (at most one per
    // client on each replica); the rest did not ask it. Before the fix every request did, and
    // waited the 1 s command timeout.
    expect(askedDuringStall, seen).toBeLessThanOrEqual(8);
    // What a user sees: the budget (100 ms) on top of the normal time, against the same load just
    // before on the same machine. Other suites only add to the times (at a load average of 18-30
    // here, medians of 0.3-1 s and a p99 up to 11 s), so the bounds are relative.
    expect(quantile(stalled, 0.25), seen).toBeLessThan(quantile(normal, 0.25) + 400);
    expect(quantile(stalled, 0.99), seen).toBeLessThan(quantile(normal, 0.99) + 400);
  });
});

describe('PostgreSQL stopped for 30 s, then started again', () => {
  it('requests in between get 503 with Retry-After, traceId and {"errors"}; API and senders recover; nothing committed is lost', async () => {
    const { token } = await operatorAt(cluster.lb).storeWithApp('outage', ['read_products', 'write_products', 'read_inventory']);
    const op = operatorAt(cluster.lb);
    const address = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const subscribed = await call(admin(cluster.lb, '/webhooks.json'), {
      token,
      body: { webhook: { topic: 'inventory_items/update', address } },
    });
    expect(subscribed.status).toBe(201);
    const made = await op.call('/stores/outage/products', {
      body: { products: [1, 2, 3].map((i) => ({ title: `Kept ${i}`, variants: [{ sku: `K-${i}` }] })) },
    });
    expect(made.status).toBe(201);
    const items = made.body.products.map(
      (p: { variants: { inventory_item_id: string }[] }) => p.variants[0]!.inventory_item_id,
    ) as string[];
    expect(
      (await op.call(`/stores/outage/inventory_items/${items[0]}`, { method: 'PUT', body: { inventory_item: { cost: '1.00' } } })).status,
    ).toBe(200);
    const senderPids = [cluster.pid('sender1'), cluster.pid('sender2')];

    // Writes and reads without pause across the stop and the start (decisions §12.7, issue 43
    // finding 7): queries cut by the shutdown (57P01), connections refused while the server shuts
    // down or starts up (57P03), then refused outright: each a 503, never a 500.
    const { token: loadToken } = await operatorAt(cluster.lb).storeWithApp('outage-load');
    const load = startLoad(4, (n, i) =>
      n % 2 === 0
        ? op.call('/stores/outage-load/products', { body: { product: { title: `load ${n}-${i}`, variants: [{ sku: `L-${n}-${i}` }] } } })
        : listing(cluster.lb, loadToken),
    );
    await until(() => load.answers.length >= 20, 30_000, 'the load answered');

    await cluster.ctl('stop-pg');
    const stoppedAt = Date.now();
    const during: Answer[] = [];
    try {
      // The edges are what matters; in between the load slows down (every answer is a quick 503).
      await sleep(2000);
      load.pauseMs = 100;
      while (Date.now() - stoppedAt < 30_000) {
        during.push(await listing(cluster.lb, token));
        during.push(await op.call('/stores/outage/products', { body: { product: { title: 'Lost?' } } }));
        await sleep(500);
      }
      load.pauseMs = 0;
      await sleep(300);
    } finally {
      await cluster.ctl('start-pg');
    }
    const startedAt = Date.now();
    await until(() => load.answers.some((a) => a.sentAt > startedAt && a.status === 201), 30_000, 'the load is served again');
    await sleep(2000);
    await load.stop();
    expect(load.errors).toEqual([]);
    const statuses = new Set(load.answers.map((a) => a.status));
    expect(statuses.has(503)).toBe(true);
    expect(load.answers.filter((a) => ![200, 201, 429, 503].includes(a.status)).map((a) => `${a.status} ${a.text}`)).toEqual([]);
    for (const a of load.answers.filter((answer) => answer.status === 503)) {
      expect(Number(a.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(typeof a.body?.errors).toBe('string');
    }

    expect(during.length).toBeGreaterThan(20);
    for (const a of during) {
      expect(a.status).toBe(503);
      expect(Number(a.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(a.headers.traceid).toMatch(/^[0-9a-f-]{36}$/);
      expect(typeof a.body?.errors).toBe('string');
      expect(a.text).not.toMatch(/\bat .*\.js:\d+/);
      // Answered at once, far inside the 30 s request timeout: a refused connection is not waited on.
      expect(a.ms).toBeLessThan(10_000);
    }

    // Both replicas serve again without a restart (their pools reconnect), and HAProxy marks them up.
    await until(async () => (await listing(cluster.lb, token)).status === 200, 20_000, 'the API answers again');
    await until(
      async () => {
        const servers = await cluster.servers();
        return servers.api1 === 'UP' && servers.api2 === 'UP';
      },
      15_000,
      'both replicas UP',
    );
    for (const origin of replicas()) expect((await listing(origin, token)).status).toBe(200);
    const all = await call(admin(cluster.lb, '/products/products.json?limit=250&fields=title'), { token });
    expect(all.body.products.map((p: { title: string }) => p.title)).toEqual(['Kept 1', 'Kept 2', 'Kept 3']);

    // The senders, the same processes, deliver the event from before the outage and one after it.
    expect(
      (await op.call(`/stores/outage/inventory_items/${items[1]}`, { method: 'PUT', body: { inventory_item: { cost: '2.00' } } })).status,
    ).toBe(200);
    await until(() => received.size >= 2, 30_000, 'both events delivered');
    expect([cluster.pid('sender1'), cluster.pid('sender2')]).toEqual(senderPids);
    for (const pid of senderPids) expect(() => process.kill(pid, 0)).not.toThrow();
  });
});

describe('SIGTERM to an API replica (decisions §12, issue 15)', () => {
  it('stops accepting, finishes what is in flight, exits 0, and no request through HAProxy fails', async () => {
    await operatorAt(cluster.lb).storeWithApp('drain');
    const answers: (Answer & { at: number })[] = [];
    const errors: string[] = [];
    let stop = false;
    // Six clients writing products of 20 variants without pause: some are always in flight.
    const client = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const variants = Array.from({ length: 20 }, (_, v) => ({ sku: `w${n}-${i}-${v}` }));
        try {
          const answer = await operatorAt(cluster.lb).call('/stores/drain/products', {
            body: { product: { title: `w${n}-${i}`, variants } },
          });
          answers.push({ ...answer, at: Date.now() });
        } catch (error) {
          errors.push((error as Error).message);
        }
      }
    };
    const clients = [1, 2, 3, 4, 5, 6].map(client);
    // Counts, not fixed times: on a loaded 2-core machine (.ci/run, the PostgreSQL suites beside)
    // the fixed 1.5 s + 3 s once saw 19 answers where the checks below want more than 20.
    await until(() => answers.length >= 5, 30_000, 'the load answered');
    const pid = cluster.pid('api1');
    process.kill(pid, 'SIGTERM');
    await until(
      () => {
        try {
          return readFileSync(join(cluster.dir, 'api1.exit'), 'utf8').trim() !== '';
        } catch {
          return false;
        }
      },
      20_000,
      'api1 exits',
    );
    const exitedAt = Date.now();
    // The load goes on against the one replica left, 3 s at least and until it has answered some.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await until(() => answers.length > 20 && answers.filter((a) => a.at > exitedAt).length > 5, 45_000, 'the replica left answered');
    stop = true;
    await Promise.all(clients);

    expect(readFileSync(join(cluster.dir, 'api1.exit'), 'utf8').trim()).toBe('0');
    expect(cluster.log('api1')).toMatch(/"signal":"SIGTERM".*"msg":"draining/);
    expect(cluster.log('api1')).not.toContain('are cut');
    expect(errors).toEqual([]);
    expect(answers.filter((a) => a.status !== 201).map((a) => `${a.status} ${a.text}`)).toEqual([]);
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.filter((a) => a.at > exitedAt).length).toBeGreaterThan(5);

    await cluster.ctl('start-api', '1');
    await until(async () => (await cluster.servers()).api1 === 'UP', 15_000, 'api1 back UP');
  });
});
