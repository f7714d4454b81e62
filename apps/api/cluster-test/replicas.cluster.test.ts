import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { signTokenRequest } from '@platform/domain';
import pg from 'pg';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, operatorAt, startCluster, until, type Answer, type Cluster } from './cluster';
import { describeAlertMetrics } from './alert-metrics';
import { describeTls } from './tls';

// Issue 15, item 3: two API replicas behind HAProxy on one PostgreSQL and one Redis behave as one
// service. Replicas are called by their own ports where a test needs "one replica, then the
// other", and through HAProxy where clients would be.
let cluster: Cluster;

beforeAll(async () => {
  cluster = await startCluster(21200, {
    PLATFORM_CLOCK: 'manual',
    // A bucket that does not leak during a test, so its capacity is exactly what gets through.
    PLATFORM_RATE_LIMIT_LEAK_PER_SECOND: '0.01',
  });
});
afterAll(() => cluster?.stop());

const one = () => cluster.replica(1);
const other = () => cluster.replica(2);

describe('one rate-limit bucket per (app, store) across replicas (decisions §7.4)', () => {
  it('a burst of 80 spread over both replicas gets exactly the capacity (40) through, then 429s', async () => {
    const { token } = await operatorAt(cluster.lb).storeWithApp('burst');
    const answers = await Promise.all(
      Array.from({ length: 80 }, () => call(admin(cluster.lb, '/products/products.json?limit=1'), { token })),
    );
    const served = new Set(answers.map((a) => a.headers['x-served-by']));
    expect(served).toEqual(new Set(['api1', 'api2']));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(40);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(40);
    for (const a of refused) {
      expect(a.body).toEqual({ errors: 'Too many requests' });
      expect(Number(a.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('forwarded headers and the statistics page (decisions §12.6, §1.4)', () => {
  const spoofed = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', forwarded: 'host=evil.example;proto=https' };

  it("a client's X-Forwarded-Host/-Proto reach no link, through the balancer or around it; the balancer's address is believed", async () => {
    const { token } = await operatorAt(cluster.lb).storeWithApp('forwarded');
    const made = await operatorAt(cluster.lb).call('/stores/forwarded/products', { body: { products: [{ title: 'A' }, { title: 'B' }] } });
    expect(made.status).toBe(201);
    const next = async (origin: string, init: Parameters<typeof call>[1] = {}) => {
      const page = await call(admin(origin, '/products/products.json?limit=1'), { token, ...init });
      expect(page.status).toBe(200);
      return page.headers.link ?? '';
    };
    // HAProxy replaces them with what it saw (the client's Host, plain HTTP).
    expect(await next(cluster.lb, { headers: spoofed })).toMatch(new RegExp(`^<${cluster.lb}/admin/openapi/`));
    // A client reaching a replica around the balancer is not believed either.
    expect(await next(one(), { headers: spoofed })).toMatch(new RegExp(`^<${one()}/admin/openapi/`));
    // From the balancer's own address (PLATFORM_TRUST_PROXY), and only from there, they are.
    const fromBalancer = new Agent({ localAddress: cluster.env.LB_SOURCE });
    try {
      expect(await next(one(), { headers: spoofed, dispatcher: fromBalancer })).toMatch(/^<https:\/\/evil\.example\/admin\/openapi\//);
    } finally {
      await fromBalancer.close();
    }
  });

  it("deploy/haproxy.cfg (docker-compose.yml's) has the tested configuration's TLS redirect and header rules, is valid, and guards its statistics page too", () => {
    const rules = (text: string) =>
      text
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line.startsWith('http-request ') || line.startsWith('acl '));
    const { BASE_DOMAIN, HTTPS_PORT } = cluster.env;
    // The shipped file takes the base domain from HAProxy's environment and serves HTTPS on 443.
    const tested = readFileSync(join(cluster.dir, 'haproxy.cfg'), 'utf8')
      .replaceAll(`"${BASE_DOMAIN}"`, '"${PLATFORM_BASE_DOMAIN}"')
      .replaceAll(`".${BASE_DOMAIN}"`, '".${PLATFORM_BASE_DOMAIN}"')
      .replaceAll(`]:${HTTPS_PORT}%`, ']%');
    const shippedFile = join(__dirname, '..', '..', '..', 'deploy', 'haproxy.cfg');
    const shipped = readFileSync(shippedFile, 'utf8');
    expect(rules(tested).length).toBeGreaterThanOrEqual(9);
    expect(rules(shipped)).toEqual(rules(tested));
    expect(shipped).toMatch(/^\s*stats auth "stats:\$\{HAPROXY_STATS_PASSWORD\}"$/m);
    expect(shipped).toMatch(/^\s*bind :8443 ssl crt \S+ /m);
    // HAProxy itself checks the shipped file, the cluster's certificate standing in for the real one.
    const checked = join(cluster.dir, 'shipped-haproxy.cfg');
    writeFileSync(checked, shipped.replace('/usr/local/etc/haproxy/certs/platform.pem', join(cluster.dir, 'tls', 'haproxy.pem')));
    const check = spawnSync('haproxy', ['-c', '-f', checked], {
      env: { ...process.env, HAPROXY_STATS_PASSWORD: 'x', PLATFORM_BASE_DOMAIN: 'shop.example.com' },
      encoding: 'utf8',
    });
    expect(check.status, check.stdout + check.stderr).toBe(0);
  });

  it('the statistics page listens on loopback and needs its password', async () => {
    expect(cluster.stats.url).toMatch(/^http:\/\/127\.0\.0\.1:/);
    expect((await call(cluster.stats.url)).status).toBe(401);
    const wrong = `Basic ${Buffer.from(`${cluster.env.STATS_USER}:wrong`).toString('base64')}`;
    expect((await call(cluster.stats.url, { headers: { authorization: wrong } })).status).toBe(401);
    expect((await call(cluster.stats.url, { headers: { authorization: cluster.stats.authorization } })).status).toBe(200);
  });
});

describeTls(() => cluster);
describeAlertMetrics(() => cluster);

describe('tokens across replicas (decisions §5.3, §5.4)', () => {
  const shop = (origin: string, token: string) => call(admin(origin, '/products/products.json?limit=1'), { token });

  it('a private token refreshed through one replica: the old one keeps its 5 minutes on the other, then is refused', async () => {
    const { appId, token } = await operatorAt(one()).storeWithApp('refresh');
    const refreshed = await operatorAt(one()).call(`/stores/refresh/apps/${appId}/token/refresh`, { method: 'POST' });
    expect(refreshed.status).toBe(200);
    expect((await shop(other(), refreshed.body.access_token)).status).toBe(200);
    expect((await shop(other(), token)).status).toBe(200);
    await operatorAt(one()).call('/clock', { body: { advance_seconds: 5 * 60 + 1 } });
    const old = await shop(other(), token);
    expect(old.status).toBe(401);
    expect((await shop(other(), refreshed.body.access_token)).status).toBe(200);
  });

  it('an app deleted through one replica: its token is refused by the other on the very next request', async () => {
    const { appId, token } = await operatorAt(one()).storeWithApp('deleted');
    expect((await shop(other(), token)).status).toBe(200);
    expect((await operatorAt(one()).call(`/stores/deleted/apps/${appId}`, { method: 'DELETE' })).status).toBe(200);
    expect((await shop(other(), token)).status).toBe(401);
  });

  it('a custom app cancelled through one replica: its token is refused by the other on the very next request', async () => {
    const op = operatorAt(one());
    expect((await op.call('/stores', { body: { store: { handle: 'cancel', name: 'Cancel' } } })).status).toBe(201);
    const app = (
      await op.call('/apps', {
        body: { app: { name: 'Custom', kind: 'custom', scopes: ['read_products'], redirect_urls: ['https://app.example.com/cb'] } },
      })
    ).body.app;
    const install = await op.call(`/stores/cancel/apps/${app.id}/install`, { body: { scopes: ['read_products'] } });
    expect(install.status).toBe(201);
    const now = Date.parse((await op.call('/clock')).body.now);
    const signed = (action: string, rawBody: string) =>
      call(`${one()}/admin/oauth/token/${action}`, {
        method: 'POST',
        headers: {
          host: `cancel.${cluster.env.BASE_DOMAIN}:${new URL(one()).port}`,
          appkey: app.app_key,
          timestamp: String(now),
          sign: signTokenRequest({ secret: app.app_secret, rawBody, timestamp: now }),
          ...(rawBody ? { 'content-type': 'application/json' } : {}),
        },
        ...(rawBody ? { body: JSON.parse(rawBody) as unknown } : {}),
      });
    const created = await signed('create', JSON.stringify({ code: install.body.code }));
    expect(created.status).toBe(200);
    const token = created.body.data.accessToken as string;
    expect((await shop(other(), token)).status).toBe(200);
    expect((await signed('cancel', '')).status).toBe(200);
    expect((await shop(other(), token)).status).toBe(401);
  });
});

describe('state shared through the database', () => {
  it('a cursor made by one replica works on the other (decisions §6.2)', async () => {
    const { token } = await operatorAt(one()).storeWithApp('cursor');
    await operatorAt(one()).call('/stores/cursor/products', { body: { products: [1, 2, 3, 4, 5].map((i) => ({ title: `P${i}` })) } });
    const first = await call(admin(one(), '/products/products.json?limit=2&fields=title'), { token });
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.link ?? '')?.[1];
    expect(next).toBeDefined();
    const onOther = new URL(next!);
    onOther.port = new URL(other()).port;
    const second = await call(onOther.toString(), { token });
    expect(second.status).toBe(200);
    expect(second.body.products.map((p: { title: string }) => p.title)).toEqual(['P3', 'P4']);
  });

  it('the manual clock moved through one replica is the time of the other (decisions §10)', async () => {
    const moved = await operatorAt(one()).call('/clock', { body: { advance_seconds: 3600 } });
    expect(moved.status).toBe(200);
    expect((await operatorAt(other()).call('/clock')).body.now).toBe(moved.body.now);
  });
});

describe('Idempotency-Key across replicas (issue 16, the key lives in the database)', () => {
  const hook = (address: string) => ({ webhook: { topic: 'inventory_items/update', address } });
  const post = (origin: string, token: string, key: string, address: string) =>
    call(admin(origin, '/webhooks.json'), { token, body: hook(address), headers: { 'idempotency-key': key } });
  const subscriptions = async (token: string) => (await call(admin(cluster.lb, '/webhooks.json'), { token })).body.webhooks as unknown[];

  it('a POST retried on the other replica gets the stored answer and writes nothing again; another body is 422', async () => {
    const { token } = await operatorAt(one()).storeWithApp('idem');
    const first = await post(one(), token, 'retry-1', 'https://hooks.example.com/one');
    expect(first.status).toBe(201);
    const again = await post(other(), token, 'retry-1', 'https://hooks.example.com/one');
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(again.body).toEqual(first.body);
    const changed = await post(other(), token, 'retry-1', 'https://hooks.example.com/two');
    expect(changed.status).toBe(422);
    expect(changed.body.errors).toEqual(expect.any(String));
    expect(await subscriptions(token)).toHaveLength(1);
  });

  it('the same key sent to both replicas at once writes once: one 201, the other its replay or 409', async () => {
    const { token } = await operatorAt(one()).storeWithApp('idem-race');
    for (let round = 0; round < 5; round++) {
      const key = `race-${round}`;
      const address = `https://hooks.example.com/race-${round}`;
      const [a, b] = await Promise.all([post(one(), token, key, address), post(other(), token, key, address)]);
      const fresh = [a, b].filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
      expect(fresh).toHaveLength(1);
      const second = a === fresh[0] ? b : a;
      if (second.status === 201) {
        expect(second.headers['idempotent-replayed']).toBe('true');
        expect(second.body).toEqual(fresh[0]!.body);
      } else {
        expect(second.status).toBe(409);
        expect(Number(second.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
    }
    expect(await subscriptions(token)).toHaveLength(5);
  });
});

describe('kill -9 of one replica under steady load', () => {
  it('after HAProxy marks it down every request is served by the other; no 201 lost its write; no 5xx from the survivor', async () => {
    const answers: { at: number; answer: Answer | undefined; error?: string }[] = [];
    let killedAt = Infinity;
    let downAt = Infinity;
    let stop = false;
    // Four clients writing products through HAProxy without pause, for as long as the test runs.
    const client = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const at = Date.now();
        try {
          const answer = await call(`${cluster.lb}/platform/v1/stores/burst/products`, {
            token: 'cluster-test-operator-token-0123',
            body: { product: { title: `load ${n}-${i}` } },
          });
          answers.push({ at, answer });
        } catch (error) {
          answers.push({ at, answer: undefined, error: (error as Error).message });
        }
      }
    };
    const clients = [1, 2, 3, 4].map(client);
    // Counts, not a fixed time: on a loaded 2-core machine 1.5 s once saw 7 answers where the
    // checks below want more than 10 (as in degraded.cluster.test.ts's SIGTERM case).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await until(() => answers.length > 10, 30_000, 'the load answered before the kill');
    process.kill(cluster.pid('api2'), 'SIGKILL');
    killedAt = Date.now();
    // HAProxy checks every 500 ms and marks a replica down after 2 failures.
    await until(async () => (await cluster.servers()).api2 === 'DOWN', 10_000, 'HAProxy marks api2 DOWN');
    downAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    stop = true;
    await Promise.all(clients);

    const before = answers.filter((a) => a.at < killedAt);
    const after = answers.filter((a) => a.at > downAt);
    expect(before.length).toBeGreaterThan(10);
    expect(after.length).toBeGreaterThan(10);
    // Both replicas served before the kill (a request in flight on api2 at the kill got HAProxy's 502, no X-Served-By).
    expect([...new Set(before.map((a) => a.answer?.headers['x-served-by']))]).toEqual(expect.arrayContaining(['api1', 'api2']));
    // Once marked down, every request is answered 201 by the survivor.
    for (const a of after) {
      expect(a.answer?.status).toBe(201);
      expect(a.answer?.headers['x-served-by']).toBe('api1');
    }
    // The survivor never answered 5xx, not even around the kill.
    expect(answers.filter((a) => a.answer?.headers['x-served-by'] === 'api1' && a.answer.status >= 500)).toEqual([]);
    // Only requests in flight on the killed replica at that instant may have failed.
    expect(answers.filter((a) => a.answer?.status !== 201).length).toBeLessThanOrEqual(4);

    const created = answers.filter((a) => a.answer?.status === 201).map((a) => String(a.answer!.body.product.id));
    const db = new pg.Client({ connectionString: cluster.env.DATABASE_URL });
    await db.connect();
    try {
      const rows = await db.query<{ id: string }>('SELECT id::text AS id FROM products WHERE id = ANY($1::bigint[])', [created]);
      expect(rows.rows.length).toBe(created.length);
    } finally {
      await db.end();
    }

    await cluster.ctl('start-api', '2');
    await until(async () => (await cluster.servers()).api2 === 'UP', 15_000, 'api2 back UP');
  });
});

describe("the deployment's allocator (deploy/with-allocator.sh, docs/production.md)", () => {
  const WITH_ALLOCATOR = join(__dirname, '..', '..', '..', 'deploy', 'with-allocator.sh');
  const mapsJemalloc = (pid: number) => readFileSync(`/proc/${pid}/maps`, 'utf8').includes('libjemalloc.so.2');
  const mapsOfChild = (env: Record<string, string>) =>
    spawnSync(WITH_ALLOCATOR, [process.execPath, '-e', "process.stdout.write(require('fs').readFileSync('/proc/self/maps', 'utf8'))"], {
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
    });

  // Under scripts/test-at.sh the programs start with libfaketime preloaded, which cannot run beside
  // jemalloc (both hang at start): an LD_PRELOAD already set is then left alone, as documented.
  const preloaded = process.env['LD_PRELOAD'];
  it.runIf(!preloaded)(
    'every replica and sender runs on jemalloc (Debian: libjemalloc2, which Redis brings), with memory given back after 1 s',
    () => {
      for (const name of ['api1', 'api2', 'sender1', 'sender2']) {
        expect(mapsJemalloc(cluster.pid(name)), `${name} runs without libjemalloc.so.2`).toBe(true);
        expect(readFileSync(`/proc/${cluster.pid(name)}/environ`, 'utf8').split('\0')).toContain(
          'MALLOC_CONF=background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0',
        );
      }
    },
  );

  it.runIf(preloaded)('an LD_PRELOAD already set (libfaketime, scripts/test-at.sh) is left alone: no jemalloc beside it', () => {
    for (const name of ['api1', 'api2', 'sender1', 'sender2']) {
      expect(readFileSync(`/proc/${cluster.pid(name)}/environ`, 'utf8').split('\0')).toContain(`LD_PRELOAD=${preloaded}`);
      expect(mapsJemalloc(cluster.pid(name)), name).toBe(false);
    }
  });

  it("PLATFORM_ALLOCATOR=system keeps glibc's malloc; a value it does not know is refused by name before anything starts", () => {
    expect(mapsOfChild({}).stdout).toContain('libjemalloc.so.2');
    const system = mapsOfChild({ PLATFORM_ALLOCATOR: 'system' });
    expect(system.status).toBe(0);
    expect(system.stdout).toContain('[stack]');
    expect(system.stdout).not.toContain('libjemalloc');
    const bad = mapsOfChild({ PLATFORM_ALLOCATOR: 'tcmalloc' });
    expect(bad.status).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain("PLATFORM_ALLOCATOR must be auto, jemalloc or system, not 'tcmalloc'");
  });
});
