import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyWebhookSignature } from '@platform/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, operatorAt, startCluster, startLoad, until, type Cluster } from '../cluster-test/cluster';

// Issue 44 §3, decisions §12.8: the upgrade rehearsal. The previous release's own scripts/cluster.sh
// (PLATFORM_PREVIOUS_DIR: its tree, built by scripts/release.sh) starts the production topology
// (PostgreSQL, Redis, HAProxy, two API replicas, two senders); reads, writes and webhooks run through
// HAProxy while this tree's `scripts/cluster.sh upgrade` applies the new migrations and replaces API 1,
// API 2, sender 1 and sender 2 one at a time with this tree's build. Seen: no request fails (HAProxy
// retries a connection a stopping replica refused; nothing else is forgiven), every acknowledged write
// is there afterwards, every webhook is delivered exactly once and never two attempts of one at once.
const PREVIOUS = process.env['PLATFORM_PREVIOUS_DIR'] ?? '';
const PREVIOUS_REF = process.env['PLATFORM_PREVIOUS_REF'] ?? 'the previous release';
const CURRENT = join(__dirname, '..', '..', '..');
const BASE_PORT = 21700;

interface Attempt {
  status: number;
  body: string;
  hmac: string;
}
/** Per X-Platform-Webhook-Id: every attempt the receiver answered, and how many were open at once. */
const attempts = new Map<string, Attempt[]>();
const open = new Map<string, number>();
const overlapping = new Set<string>();
let receiver: Server;
let cluster: Cluster | undefined;

beforeAll(async () => {
  if (!PREVIOUS || !existsSync(join(PREVIOUS, 'scripts', 'cluster.sh')) || !existsSync(join(PREVIOUS, 'apps', 'api', 'dist', 'main.js'))) {
    throw new Error('PLATFORM_PREVIOUS_DIR is not a built tree of the previous release: run scripts/release.sh rehearse');
  }
  // A receiver that takes 20 ms to answer, so deliveries are in flight while senders are replaced.
  receiver = createServer((req, res) => {
    const id = String(req.headers['x-platform-webhook-id'] ?? '');
    open.set(id, (open.get(id) ?? 0) + 1);
    if (open.get(id)! > 1) overlapping.add(id);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      setTimeout(() => {
        attempts.set(id, [
          ...(attempts.get(id) ?? []),
          { status: 200, body: Buffer.concat(chunks).toString('utf8'), hmac: String(req.headers['x-platform-hmac-sha256'] ?? '') },
        ]);
        open.set(id, open.get(id)! - 1);
        res.end('ok');
      }, 20);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  cluster = await startCluster(
    BASE_PORT,
    // The shortest lease: a delivery a sender held when it stopped would be sent again within 6 s.
    // The drain this tree's cluster gives its replicas (1.0.0's script gave 2 s: too thin a margin
    // over HAProxy's 1.75 s on a loaded machine, scripts/cluster/lib.sh), for the old ones too.
    {
      PLATFORM_RATE_LIMIT_CAPACITY: '100000',
      PLATFORM_SENDER_POLL_MS: '100',
      PLATFORM_SENDER_LEASE_MS: '6000',
      PLATFORM_DRAIN_DELAY_MS: '3000',
    },
    undefined,
    join(PREVIOUS, 'scripts', 'cluster.sh'),
  );
});

afterAll(async () => {
  await cluster?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** The program a cluster process (api1, sender2, ...) runs, from its command line. */
const programOf = (name: string) =>
  readFileSync(`/proc/${cluster!.pid(name)}/cmdline`, 'utf8')
    .split('\0')
    .join(' ');

describe(`the upgrade rehearsal: a cluster of ${PREVIOUS_REF} rolled to this tree under load`, () => {
  it('migrates, replaces API 1, API 2, sender 1 and sender 2 one at a time: no failed request, every write kept, every webhook delivered once', async () => {
    const lb = cluster!.lb;
    for (const name of ['api1', 'api2', 'sender1', 'sender2']) expect(programOf(name)).toContain(PREVIOUS);
    const op = operatorAt(lb);
    const { token, secret } = await op.storeWithApp('rolled', ['read_products', 'write_products', 'read_inventory']);
    const address = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const hook = await call(admin(lb, '/webhooks.json'), { token, body: { webhook: { topic: 'inventory_items/update', address } } });
    expect(hook.status).toBe(201);
    const made = await op.call('/stores/rolled/products', {
      body: { products: [1, 2].map((i) => ({ title: `Item ${i}`, variants: [{ sku: `I-${i}` }] })) },
    });
    expect(made.status).toBe(201);
    const items = made.body.products.map(
      (p: { variants: { inventory_item_id: string }[] }) => p.variants[0]!.inventory_item_id,
    ) as string[];

    // Through HAProxy, each client one call after the other: product writes, inventory cost changes
    // (one webhook each), listings with the app's token.
    const load = startLoad(4, (n, i) => {
      if (n === 0) return op.call('/stores/rolled/products', { body: { product: { title: `write ${i}` } } });
      if (n === 1)
        return op.call(`/stores/rolled/inventory_items/${items[i % 2]}`, { method: 'PUT', body: { inventory_item: { cost: `${i}.50` } } });
      return call(admin(lb, '/products/products.json?limit=5&fields=title'), { token });
    });
    await until(() => load.answers.length >= 40, 60_000, 'the load ran against the previous release');

    const upgradeStarted = Date.now();
    const upgraded = await cluster!.ctl('upgrade');
    const upgradeDone = Date.now();
    expect(upgraded.stderr).toMatch(/Applied \d+ migration\(s\)/);
    expect(upgraded.stderr.indexOf('API replica 1 runs')).toBeLessThan(upgraded.stderr.indexOf('API replica 2 runs'));
    expect(upgraded.stderr.indexOf('API replica 2 runs')).toBeLessThan(upgraded.stderr.indexOf('sender 1 runs'));
    expect(upgraded.stderr.indexOf('sender 1 runs')).toBeLessThan(upgraded.stderr.indexOf('sender 2 runs'));
    for (const name of ['api1', 'api2', 'sender1', 'sender2']) {
      expect(programOf(name)).toContain(CURRENT);
      expect(programOf(name)).not.toContain(PREVIOUS);
    }
    await until(() => load.answers.filter((a) => a.sentAt > upgradeDone).length >= 20, 60_000, 'the load ran against this tree');
    await load.stop();

    // No failed request: every call answered, each with its success status.
    expect(load.errors).toEqual([]);
    const at = (t: number) => `${((t - upgradeStarted) / 1000).toFixed(2)} s`;
    expect(
      load.answers
        .filter((a) => a.status !== 200 && a.status !== 201)
        .map((a) => `${a.status} sent at ${at(a.sentAt)} of the upgrade, answered after ${a.ms} ms: ${a.text.slice(0, 120)}`),
      `the upgrade, ${at(upgradeDone)}:\n${upgraded.stderr}`,
    ).toEqual([]);
    const during = load.answers.filter((a) => a.sentAt < upgradeDone);
    expect(during.length).toBeGreaterThan(100);

    // Every acknowledged write is there.
    const written = load.answers.filter((a) => a.status === 201).map((a) => a.body.product.title as string);
    const titles: string[] = [];
    let url: string | undefined = admin(lb, '/products/products.json?limit=250&fields=title');
    while (url) {
      const page = await call(url, { token });
      expect(page.status).toBe(200);
      titles.push(...page.body.products.map((p: { title: string }) => p.title));
      url = /<([^>]+)>; rel="next"/.exec(page.headers.link ?? '')?.[1];
    }
    expect(written.filter((t) => !titles.includes(t))).toEqual([]);

    // Every acknowledged cost change reaches the receiver, each webhook once, never twice at once.
    const costs = load.answers.filter((a) => a.status === 200 && a.body?.inventory_item).map((a) => String(a.body.inventory_item.cost));
    expect(costs.length).toBeGreaterThan(20);
    const deliveredCosts = () =>
      new Set(
        [...attempts.values()]
          .flat()
          .map((a) => String((JSON.parse(a.body) as { inventory_item?: { cost?: unknown } }).inventory_item?.cost)),
      );
    await until(() => costs.every((c) => deliveredCosts().has(c)), 90_000, 'every cost change delivered').catch((error: Error) => {
      throw new Error(
        `${error.message}: missing ${costs
          .filter((c) => !deliveredCosts().has(c))
          .slice(0, 10)
          .join(', ')}`,
      );
    });
    // Past a lease's end, a delivery a stopped sender had held would have been sent again by now.
    await new Promise((resolve) => setTimeout(resolve, 7000));
    const twice = [...attempts.entries()].filter(([, list]) => list.length !== 1).map(([id, list]) => `${id}: ${list.length}`);
    expect(twice).toEqual([]);
    expect([...overlapping]).toEqual([]);
    expect(attempts.size).toBe(costs.length);
    for (const list of attempts.values()) expect(verifyWebhookSignature(list[0]!.body, list[0]!.hmac, secret)).toBe(true);
    // What the run saw, for the record (docs/production.md, "Upgrading"): HAProxy's retries are the
    // connections a stopping replica refused, sent again to the other one.
    const csv = (await call(`${cluster!.stats.url};csv`)).text.split('\n');
    const header = csv[0]!.replace(/^# /, '').split(',');
    const backend = csv.find((l) => l.startsWith('replicas,BACKEND,'))?.split(',') ?? [];
    const field = (name: string) => backend[header.indexOf(name)] ?? '?';
    console.log(
      `upgrade rehearsal: the upgrade took ${((upgradeDone - upgradeStarted) / 1000).toFixed(1)} s; ` +
        `${load.answers.filter((a) => a.sentAt >= upgradeStarted && a.sentAt < upgradeDone).length} requests during it, ` +
        `${load.answers.length} in all, none failed; ${written.length} writes kept; ${attempts.size} webhooks delivered once; ` +
        `HAProxy retried ${field('wretr')} connections and redispatched ${field('wredis')}\n${upgraded.stderr}`,
    );
  });
});
