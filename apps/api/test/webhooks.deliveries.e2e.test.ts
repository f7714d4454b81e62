import { ZWebhookDelivery } from '@platform/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, OPERATOR_TOKEN, operator, startPlatform, storeWithApp, type TestPlatform } from './harness';
import { recordAttempts } from './webhooks.helpers';

let t: TestPlatform;
const op = () => operator(t);
let shop: Awaited<ReturnType<typeof storeWithApp>>;
let itemId: string;
let subscriptionId: string;

async function emit(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await op().call(`/stores/queue/inventory_items/${itemId}`, { method: 'PUT', body: { inventory_item: { sku: `S-${i}` } } });
    if (r.status !== 200) throw new Error(`emit ${r.status} ${r.text}`);
  }
}

const listed = (query = '') => op().call(`/stores/queue/webhooks/deliveries${query}`);
const ids = (r: { body: { deliveries: { id: string }[] } }) => r.body.deliveries.map((d) => d.id);

beforeAll(async () => {
  t = await startPlatform({ PLATFORM_RATE_LIMIT_CAPACITY: '100000' });
  await op().call('/clock', { body: { now: '2026-11-22T00:00:00Z' } });
  shop = await storeWithApp(t, 'queue', ['read_inventory']);
  const product = await op().call('/stores/queue/products', { body: { product: { title: 'Lamp' } } });
  itemId = product.body.product.variants[0].inventory_item_id;
  const sub = await shop.admin('/webhooks.json', {
    body: { webhook: { topic: 'inventory_items/update', address: 'https://queue.example.com/in' } },
  });
  subscriptionId = sub.body.webhook.id;
  await emit(5);
});
afterAll(() => t.close());

describe('the deliveries view (decisions §10)', () => {
  it("lists the store's deliveries with their attempts, oldest first", async () => {
    const [first] = await t.db.prisma.webhookDelivery.findMany({ orderBy: { id: 'asc' }, take: 1 });
    await recordAttempts(t, first!.id, [
      { at: new Date('2026-11-22T00:00:01Z'), durationMs: 5000, error: 'timeout after 5 s' },
      { at: new Date('2026-11-22T00:00:12Z'), durationMs: 41, status: 200, body: 'ok' },
    ]);

    const r = await listed();
    expect(r.status).toBe(200);
    expect(r.body.deliveries).toHaveLength(5);
    const delivery = ZWebhookDelivery.parse(r.body.deliveries[0]);
    expect(delivery).toMatchObject({
      subscription_id: subscriptionId,
      app_id: shop.app.app.id,
      topic: 'inventory_items/update',
      address: 'https://queue.example.com/in',
      status: 'delivered',
      attempt_count: 2,
      delivered_at: '2026-11-22T00:00:12+00:00',
    });
    expect(delivery.attempts).toEqual([
      {
        number: 1,
        started_at: '2026-11-22T00:00:01+00:00',
        duration_ms: 5000,
        response_status: null,
        error: 'timeout after 5 s',
        response_body: null,
      },
      { number: 2, started_at: '2026-11-22T00:00:12+00:00', duration_ms: 41, response_status: 200, error: null, response_body: 'ok' },
    ]);
    expect(JSON.parse(delivery.body).inventory_item.sku).toBe('S-0');
    expect(r.body.deliveries[1].attempts).toEqual([]);
    expect(r.body.deliveries[1].status).toBe('pending');
  });

  it('filters by status and pages by id with the link header', async () => {
    const pending = await listed('?status=pending&limit=2');
    expect(pending.body.deliveries.map((d: { status: string }) => d.status)).toEqual(['pending', 'pending']);
    const next = /<([^>]+)>; rel="next"/.exec(pending.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    const second = await call(next!, { token: OPERATOR_TOKEN });
    expect(second.status).toBe(200);
    expect(second.body.deliveries).toHaveLength(2);
    expect(second.body.deliveries.every((d: { status: string }) => d.status === 'pending')).toBe(true);
    expect(ids(second)[0]! > ids(pending)[1]!).toBe(true);
    expect(ids(await listed('?status=delivered'))).toHaveLength(1);
    expect(ids(await listed('?status=failed'))).toEqual([]);
    const since = await listed(`?since_id=${ids(pending)[0]}`);
    expect(ids(since)).not.toContain(ids(pending)[0]);
  });

  it('pages through deliveries of every status in id order, both ways, without a status filter (issue 48: one read per status)', async () => {
    const mixed = await storeWithApp(t, 'queue-mixed', ['read_inventory']);
    const lamp = await op().call('/stores/queue-mixed/products', { body: { product: { title: 'Lamp' } } });
    const item = lamp.body.product.variants[0].inventory_item_id;
    await mixed.admin('/webhooks.json', {
      body: { webhook: { topic: 'inventory_items/update', address: 'https://mixed.example.com/in' } },
    });
    for (let i = 0; i < 7; i++)
      await op().call(`/stores/queue-mixed/inventory_items/${item}`, { method: 'PUT', body: { inventory_item: { sku: `M-${i}` } } });
    const rows = await t.db.prisma.webhookDelivery.findMany({ where: { storeId: BigInt(mixed.store.id) }, orderBy: { id: 'asc' } });
    expect(rows).toHaveLength(7);
    const statuses = ['failed', 'pending', 'delivered', 'delivered', 'pending', 'failed', 'delivered'];
    for (const [i, row] of rows.entries())
      await t.db.prisma.webhookDelivery.update({ where: { id: row.id }, data: { status: statuses[i]! } });
    const all = rows.map((r) => r.id.toString());

    const forward: string[] = [];
    let page = await op().call('/stores/queue-mixed/webhooks/deliveries?limit=2');
    let pages = [page];
    for (;;) {
      forward.push(...ids(page));
      const next = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
      if (!next) break;
      page = await call(next, { token: OPERATOR_TOKEN });
      pages.push(page);
    }
    expect(forward).toEqual(all);
    expect(pages.flatMap((p) => p.body.deliveries.map((d: { status: string }) => d.status))).toEqual(statuses);
    // Back from the last page by its previous links.
    const backward: string[] = [];
    pages = [];
    for (;;) {
      backward.unshift(...ids(page));
      const previous = /<([^>]+)>; rel="previous"/.exec(page.headers.get('link') ?? '')?.[1];
      if (!previous) break;
      page = await call(previous, { token: OPERATOR_TOKEN });
    }
    expect(backward).toEqual(all);
  });

  it('refuses a bad status or limit with 400, and an unknown store with 404', async () => {
    expect((await listed('?status=sent')).status).toBe(400);
    expect((await listed('?status=sent')).body.errors).toBe('status: is not included in the list (pending, delivered, failed)');
    expect((await listed('?limit=1001')).status).toBe(400);
    expect((await op().call('/stores/nowhere/webhooks/deliveries')).status).toBe(404);
  });

  it('shows another store none of these', async () => {
    await op().createStore('queue-other');
    const r = await op().call('/stores/queue-other/webhooks/deliveries');
    expect(r.body.deliveries).toEqual([]);
  });
});

describe('redelivery', () => {
  it('puts a failed delivery back to pending, due now, with a fresh round', async () => {
    const [, failed] = await t.db.prisma.webhookDelivery.findMany({ orderBy: { id: 'asc' }, take: 2 });
    await t.db.prisma.webhookDelivery.update({
      where: { id: failed!.id },
      data: { status: 'failed', attempts: 9, lastError: 'HTTP 500', nextAttemptAt: new Date('2026-11-21T00:00:00Z') },
    });
    await op().advanceClock(600);
    const r = await op().call(`/stores/queue/webhooks/deliveries/${failed!.id}/redeliver`, { method: 'POST' });
    expect(r.status).toBe(200);
    expect(r.body.delivery).toMatchObject({
      id: failed!.id.toString(),
      status: 'pending',
      attempt_count: 0,
      last_error: null,
      next_attempt_at: '2026-11-22T00:10:00+00:00',
    });
    const row = await t.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: failed!.id } });
    expect(row).toMatchObject({ status: 'pending', attempts: 0, leaseOwner: null, webhookId: failed!.webhookId, body: failed!.body });
    expect(row.nextAttemptAt.toISOString()).toBe('2026-11-22T00:10:00.000Z');

    const again = await op().call(`/stores/queue/webhooks/deliveries/${failed!.id}/redeliver`, { method: 'POST' });
    expect(again.status).toBe(422);
    expect(again.body.errors).toBe('status: only a failed delivery can be redelivered (this one is pending)');
  });

  it("refuses a delivered one, a disabled subscription's, and answers 404 for unknown or foreign ids", async () => {
    const delivered = await t.db.prisma.webhookDelivery.findFirstOrThrow({ where: { status: 'delivered' } });
    expect((await op().call(`/stores/queue/webhooks/deliveries/${delivered.id}/redeliver`, { method: 'POST' })).status).toBe(422);

    const [, , third] = await t.db.prisma.webhookDelivery.findMany({ orderBy: { id: 'asc' }, take: 3 });
    await t.db.prisma.webhookDelivery.update({ where: { id: third!.id }, data: { status: 'failed' } });
    await t.db.prisma.webhookSubscription.update({
      where: { id: BigInt(subscriptionId) },
      data: { status: 'disabled', disabledReason: 'gone' },
    });
    const refused = await op().call(`/stores/queue/webhooks/deliveries/${third!.id}/redeliver`, { method: 'POST' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toMatch(/disabled; enable it first/);
    await t.db.prisma.webhookSubscription.update({
      where: { id: BigInt(subscriptionId) },
      data: { status: 'enabled', disabledReason: null },
    });

    expect((await op().call(`/stores/queue-other/webhooks/deliveries/${third!.id}/redeliver`, { method: 'POST' })).status).toBe(404);
    expect((await op().call('/stores/queue/webhooks/deliveries/999999/redeliver', { method: 'POST' })).status).toBe(404);
    expect((await op().call('/stores/queue/webhooks/deliveries/x/redeliver', { method: 'POST' })).status).toBe(404);
  });

  it('ends pending deliveries as failed when their subscription is removed', async () => {
    const before = await t.db.prisma.webhookDelivery.count({ where: { status: 'pending' } });
    expect(before).toBeGreaterThan(0);
    const extra = await shop.admin('/webhooks.json', {
      body: { webhook: { topic: 'inventory_items/update', address: 'https://gone.example.com/' } },
    });
    await emit(1);
    const mine = await t.db.prisma.webhookDelivery.findFirstOrThrow({ where: { subscriptionId: BigInt(extra.body.webhook.id) } });
    expect(mine.status).toBe('pending');
    expect((await shop.admin(`/webhooks/${extra.body.webhook.id}.json`, { method: 'DELETE' })).status).toBe(200);
    const after = await t.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: mine.id } });
    expect(after).toMatchObject({ status: 'failed', lastError: 'subscription removed' });
    const r = await op().call(`/stores/queue/webhooks/deliveries/${mine.id}/redeliver`, { method: 'POST' });
    expect(r.status).toBe(422);
    expect(r.body.errors).toMatch(/was removed/);
    const view = await listed(`?since_id=${mine.id - 1n}&limit=1`);
    expect(view.body.deliveries[0].address).toBeNull();
  });

  it('leaves a delivery being POSTed when its subscription is removed to its sender, which records the attempt', async () => {
    const extra = await shop.admin('/webhooks.json', {
      body: { webhook: { topic: 'inventory_items/update', address: 'https://in-flight.example.com/' } },
    });
    const subscriptionId = BigInt(extra.body.webhook.id);
    await emit(3);
    const [sending, held, idle] = await t.db.prisma.webhookDelivery.findMany({ where: { subscriptionId }, orderBy: { id: 'asc' } });
    const leaseUntil = new Date(Date.now() + 60_000);
    // A sender's live claims: one POST open (its host set, counted), one held for the next slot.
    await t.db.prisma.webhookDelivery.update({
      where: { id: sending!.id },
      data: { leaseOwner: 'sender-a', leaseUntil, leaseHost: 'in-flight.example.com' },
    });
    await t.db.prisma.webhookDelivery.update({ where: { id: held!.id }, data: { leaseOwner: 'sender-a', leaseUntil } });
    expect((await shop.admin(`/webhooks/${extra.body.webhook.id}.json`, { method: 'DELETE' })).status).toBe(200);
    const after = async (id: bigint) => t.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id } });
    expect(await after(sending!.id)).toMatchObject({ status: 'pending', leaseOwner: 'sender-a', leaseHost: 'in-flight.example.com' });
    expect(await after(held!.id)).toMatchObject({ status: 'failed', lastError: 'subscription removed', leaseOwner: null });
    expect(await after(idle!.id)).toMatchObject({ status: 'failed', lastError: 'subscription removed' });
    await t.db.prisma.webhookDelivery.update({
      where: { id: sending!.id },
      data: { status: 'failed', leaseOwner: null, leaseUntil: null, leaseHost: null },
    });
  });
});

describe('queue metrics (decisions §12.3)', () => {
  it('reports queue depth, the age of the oldest due delivery and deliveries by status, read on scrape', async () => {
    const counts = async (status: string) => t.db.prisma.webhookDelivery.count({ where: { status } });
    const oldest = await t.db.prisma.webhookDelivery.findFirstOrThrow({ where: { status: 'pending' }, orderBy: { nextAttemptAt: 'asc' } });
    await op().advanceClock(30);
    const now = Date.parse((await op().call('/clock')).body.now);
    const text = (await call(`${t.origin}/metrics`, { token: OPERATOR_TOKEN })).text;
    const value = (name: string) => Number(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('webhook_queue_depth')).toBe(await counts('pending'));
    expect(value('webhook_deliveries{status="pending"}')).toBe(await counts('pending'));
    expect(value('webhook_deliveries{status="delivered"}')).toBe(await counts('delivered'));
    expect(value('webhook_deliveries{status="failed"}')).toBe(await counts('failed'));
    expect(value('webhook_oldest_due_delivery_age_seconds')).toBe((now - oldest.nextAttemptAt.getTime()) / 1000);

    await emit(1);
    const later = (await call(`${t.origin}/metrics`, { token: OPERATOR_TOKEN })).text;
    expect(Number(/^webhook_queue_depth (\S+)$/m.exec(later)?.[1])).toBe(await counts('pending'));
  });
});
