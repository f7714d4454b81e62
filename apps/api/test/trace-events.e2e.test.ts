import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operator, startPlatform, storeWithApp, type TestPlatform } from './harness';

/*
 * Issue 15, one observability story: the events a request writes carry its traceId, so the
 * sender's log lines about their deliveries name the API call that caused them (the sender's half
 * is tested in apps/webhooks, test/trace.e2e.test.ts).
 */

let t: TestPlatform;
let itemId: string;
const TRACE = '0af7651916cd43dd8448eb211c80319c';

beforeAll(async () => {
  t = await startPlatform();
  const shop = await storeWithApp(t, 'traced', ['read_inventory']);
  const sub = await shop.admin('/webhooks.json', {
    body: { webhook: { topic: 'inventory_items/update', address: 'https://hooks.example.com/in' } },
  });
  expect(sub.status).toBe(201);
  const product = await operator(t).call('/stores/traced/products', { body: { product: { title: 'Mug', variants: [{ sku: 'MUG-1' }] } } });
  itemId = product.body.product.variants[0].inventory_item_id;
});
afterAll(() => t.close());

const update = (sku: string, headers: Record<string, string> = {}) =>
  operator(t).call(`/stores/traced/inventory_items/${itemId}`, { method: 'PUT', body: { inventory_item: { sku } }, headers });
const lastDelivery = () =>
  t.db.prisma.webhookDelivery.findFirstOrThrow({ where: { topic: 'inventory_items/update' }, orderBy: { id: 'desc' } });

describe('an event carries the traceId of the request that wrote it (issue 15)', () => {
  it("the caller's W3C trace id when it sent a traceparent", async () => {
    const r = await update('MUG-2', { traceparent: `00-${TRACE}-b7ad6b7169203331-01` });
    expect(r.status).toBe(200);
    expect(r.headers.get('traceid')).toBe(TRACE);
    expect((await lastDelivery()).traceId).toBe(TRACE);
  });

  it('else the traceId the API made for the request, the one it answered', async () => {
    const r = await update('MUG-3');
    expect(r.status).toBe(200);
    const traceId = r.headers.get('traceid');
    expect(traceId).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(traceId).not.toBe(TRACE);
    expect((await lastDelivery()).traceId).toBe(traceId);
  });

  it('requests running at once each give their events their own traceId', async () => {
    const traces = Array.from({ length: 6 }, (_, i) => `${String(i + 1).repeat(8)}${TRACE.slice(8)}`);
    const answers = await Promise.all(
      traces.map((trace, i) => update(`MUG-${10 + i}`, { traceparent: `00-${trace}-b7ad6b7169203331-01` })),
    );
    expect(answers.map((a) => a.status)).toEqual(traces.map(() => 200));
    const rows = await t.db.prisma.webhookDelivery.findMany({ where: { traceId: { in: traces } } });
    const bySku = new Map(rows.map((row) => [JSON.parse(row.body).inventory_item.sku as string, row.traceId]));
    expect(traces.map((_, i) => bySku.get(`MUG-${10 + i}`))).toEqual(traces);
  });
});
