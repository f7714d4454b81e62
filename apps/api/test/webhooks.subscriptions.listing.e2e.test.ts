import { describe, expect, it } from 'vitest';
import { call, operator, storeWithApp, VERSION } from './harness';
import { ALL, hook, hooksPlatform } from './webhooks.helpers';

// Webhook subscriptions: who sees which, and the listing (the rest: webhooks.subscriptions.e2e.test.ts).

const hooks = hooksPlatform();
const op = () => operator(hooks.t);

describe('who sees what (decisions §5.5, §11.1)', () => {
  it("never shows or touches another app's or another store's subscription: 404", async () => {
    const mine = await hooks.shop.admin('/webhooks.json', { body: hook({ address: 'https://mine.example.com/' }) });
    const id = mine.body.webhook.id as string;
    const sameStore = await op().createPrivateApp('hooks', ALL);
    const otherStore = await storeWithApp(hooks.t, 'hooks-other', ALL);
    for (const token of [sameStore.access_token, otherStore.token]) {
      const at = (path: string, init: Parameters<typeof call>[1] = {}) =>
        call(`${hooks.t.origin}/admin/openapi/${VERSION}${path}`, { token, ...init });
      expect((await at(`/webhooks/${id}.json`)).status).toBe(404);
      expect((await at(`/${id}/webhooks.json`)).status).toBe(404);
      expect((await at(`/webhooks/${id}.json`, { method: 'PUT', body: { webhook: { status: 'disabled' } } })).status).toBe(404);
      expect((await at(`/webhooks/${id}.json`, { method: 'DELETE' })).status).toBe(404);
      const list = await at('/webhooks.json?limit=250');
      expect(list.body.webhooks.map((w: { id: string }) => w.id)).not.toContain(id);
    }
    expect((await hooks.shop.admin(`/webhooks/${id}.json`)).body.webhook.status).toBe('enabled');
  });

  it('needs the read scope of the topic: 403 naming it', async () => {
    const inventoryOnly = await storeWithApp(hooks.t, 'hooks-inv', ['write_inventory']);
    const r = await inventoryOnly.admin('/webhooks.json', { body: hook({ topic: 'fulfillment_order/released' }) });
    expect(r.status).toBe(403);
    expect(r.body.errors).toBe('This action requires the access scope read_fulfillments');
    // write_inventory implies read_inventory.
    expect((await inventoryOnly.admin('/webhooks.json', { body: hook() })).status).toBe(201);

    const none = await storeWithApp(hooks.t, 'hooks-none', ['read_products']);
    const refused = await none.admin('/webhooks.json', { body: hook() });
    expect(refused.status).toBe(403);
    expect(refused.body.errors).toBe('This action requires the access scope read_inventory or read_fulfillments');
    expect((await none.admin('/webhooks.json')).status).toBe(403);
    expect((await none.admin('/webhooks/1.json')).status).toBe(403);
  });

  it('lists only topics the token may read; a subscription of another topic is 403 to read or change', async () => {
    const s = await storeWithApp(hooks.t, 'hooks-narrow', ALL);
    const inv = await s.admin('/webhooks.json', { body: hook() });
    const ful = await s.admin('/webhooks.json', { body: hook({ topic: 'fulfillment_order/released' }) });
    // The app's scopes shrink to inventory only (as a merchant could re-grant them).
    await hooks.t.db.prisma.installation.updateMany({ where: { store: { handle: 'hooks-narrow' } }, data: { scopes: 'read_inventory' } });
    const list = await s.admin('/webhooks.json');
    expect(list.body.webhooks.map((w: { id: string }) => w.id)).toEqual([inv.body.webhook.id]);
    const read = await s.admin(`/webhooks/${ful.body.webhook.id}.json`);
    expect(read.status).toBe(403);
    expect(read.body.errors).toBe('This action requires the access scope read_fulfillments');
    expect((await s.admin(`/webhooks/${ful.body.webhook.id}.json`, { method: 'DELETE' })).status).toBe(403);
    expect(
      (
        await s.admin(`/webhooks/${inv.body.webhook.id}.json`, {
          method: 'PUT',
          body: { webhook: { topic: 'fulfillment_order/released' } },
        })
      ).status,
    ).toBe(403);
  });

  it('answers 402 for a frozen store and 423 for a closed one', async () => {
    const s = await storeWithApp(hooks.t, 'hooks-status', ALL);
    await op().call('/stores/hooks-status', { method: 'PATCH', body: { store: { status: 'frozen' } } });
    expect((await s.admin('/webhooks.json', { body: hook() })).status).toBe(402);
    expect((await s.admin('/webhooks.json')).status).toBe(402);
    await op().call('/stores/hooks-status', { method: 'PATCH', body: { store: { status: 'closed' } } });
    expect((await s.admin('/webhooks.json', { body: hook() })).status).toBe(423);
    expect((await s.admin('/webhooks/1.json')).status).toBe(423);
  });

  it('needs a token: 401', async () => {
    const r = await call(`${hooks.t.origin}/admin/openapi/${VERSION}/webhooks.json`, { body: hook() });
    expect(r.status).toBe(401);
  });
});

describe('the listing (decisions §6)', () => {
  it('pages with limit, since_id, fields and the link header', async () => {
    const s = await storeWithApp(hooks.t, 'hooks-pages', ALL);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await s.admin('/webhooks.json', { body: hook({ address: `https://p${i}.example.com/` }) });
      ids.push(r.body.webhook.id);
    }
    const first = await s.admin('/webhooks.json?limit=2&fields=address');
    expect(first.status).toBe(200);
    expect(first.body.webhooks).toEqual([
      { id: ids[0], address: 'https://p0.example.com/' },
      { id: ids[1], address: 'https://p1.example.com/' },
    ]);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    const second = await call(next!, { token: s.token });
    expect(second.body.webhooks.map((w: { id: string }) => w.id)).toEqual(ids.slice(2, 4));
    expect(second.headers.get('link')).toMatch(/rel="previous"/);

    const since = await s.admin(`/webhooks.json?since_id=${ids[3]}`);
    expect(since.body.webhooks.map((w: { id: string }) => w.id)).toEqual([ids[4]]);
    expect(since.headers.get('link')).toBeNull();

    const byTopic = await s.admin('/webhooks.json?topic=fulfillment_order/released');
    expect(byTopic.body.webhooks).toEqual([]);
    expect((await s.admin('/webhooks.json?topic=orders/create')).status).toBe(400);
    expect((await s.admin('/webhooks.json?limit=0')).status).toBe(400);
    expect((await s.admin('/webhooks.json?page_info=forged')).status).toBe(400);
    // Another app's cursor is not this app's listing.
    const cursor = new URL(next!).searchParams.get('page_info')!;
    expect((await hooks.shop.admin(`/webhooks.json?page_info=${encodeURIComponent(cursor)}`)).status).toBe(400);
  });
});
