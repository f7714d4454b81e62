import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type FileBrowser } from './browser';
import { call, operator, startPlatform, VERSION, type TestPlatform } from './harness';
import { at, feedbackApi, privateApp, setClock, START } from './resource-feedback.helpers';
import { recordAttempts } from './webhooks.helpers';

/**
 * The merchant's feedback and deliveries pages in Chromium at phone width (issues 9 and 10): sign in,
 * open a product's feedback, open an app's deliveries, press Redeliver, see the delivery pending.
 * Store hosts are `demo.localhost:<port>`: Chromium resolves *.localhost to loopback.
 */

let t: TestPlatform;
let browser: FileBrowser;
let productId: string;
let appId: string;
let failedId: bigint;

beforeAll(async () => {
  browser = await launchChromium();
  t = await startPlatform({ PLATFORM_BASE_DOMAIN: 'localhost' });
  const op = operator(t);
  await setClock(t, START);
  await op.createStore('demo', { name: 'Demo Store', iana_timezone: 'Europe/Berlin' });
  const scopes = ['read_products', 'write_products', 'read_inventory'];
  const checker = await privateApp(t, 'demo', 'Listing Checker', scopes);
  const seo = await privateApp(t, 'demo', 'SEO Helper', scopes);
  appId = checker.id;
  const created = await op.call('/stores/demo/products', {
    body: { product: { title: 'Oak desk lamp with a rather long product title' } },
  });
  productId = created.body.product.id;
  await feedbackApi(t, checker.token).post(productId, {
    state: 'require_actions',
    feedback_generated_at: at(-30),
    messages: ['Add at least one image', 'The description is shorter than 50 characters'],
  });
  await feedbackApi(t, seo.token).post(productId, { state: 'success', feedback_generated_at: at(-5) });
  const sub = await call(`${t.origin}/admin/openapi/${VERSION}/webhooks.json`, {
    token: checker.token,
    body: { webhook: { topic: 'inventory_items/update', address: 'https://checker.example.com/webhooks/inventory' } },
  });
  expect(sub.status).toBe(201);
  const itemId = created.body.product.variants[0].inventory_item_id;
  for (const sku of ['LAMP-1', 'LAMP-2']) {
    expect((await op.call(`/stores/demo/inventory_items/${itemId}`, { method: 'PUT', body: { inventory_item: { sku } } })).status).toBe(
      200,
    );
  }
  const [first, second] = await t.db.prisma.webhookDelivery.findMany({ orderBy: { id: 'asc' } });
  failedId = first!.id;
  await recordAttempts(t, failedId, [
    { at: new Date(START), durationMs: 5000, error: 'timeout after 5 s' },
    { at: new Date(START), durationMs: 48, status: 503, error: 'HTTP 503', body: 'busy' },
  ]);
  await recordAttempts(t, second!.id, [{ at: new Date(START), durationMs: 35, status: 200, body: 'ok' }]);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the merchant pages in Chromium at phone width', () => {
  it("opens a product's feedback and an app's deliveries, and redelivers a failed delivery", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const link = await operator(t).call('/stores/demo/admin_sessions', { method: 'POST' });
    const page = await context.newPage();
    await page.goto(link.body.url);
    await page.getByRole('heading', { name: 'Installed apps' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Needs your attention' }).count()).toBe(1);

    await page.getByRole('link', { name: 'Products' }).click();
    await page.getByRole('heading', { name: 'Products' }).waitFor();
    // Issue 18: the title leads to the product page, the feedback state to the feedback page.
    await page.getByRole('link', { name: /^Action required \(feedback on Oak desk lamp/ }).click();
    await page.getByRole('heading', { name: 'Listing Checker' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/admin/products/${productId}/resource_feedback`);
    expect(await page.getByText('Add at least one image').count()).toBe(1);
    expect(await page.getByText('Action required').count()).toBe(1);
    expect(await page.getByText('All good').count()).toBe(1);
    await page.screenshot({ path: join(tmpdir(), 'merchant-feedback-phone.png'), fullPage: true });

    await page.getByRole('link', { name: 'Apps' }).click();
    await page.getByRole('link', { name: 'Deliveries of Listing Checker' }).click();
    await page.getByRole('heading', { name: 'Recent deliveries' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/admin/apps/${appId}/deliveries`);
    expect(await page.getByText('timeout after 5 s').count()).toBe(1);
    await page.screenshot({ path: join(tmpdir(), 'merchant-deliveries-phone.png'), fullPage: true });

    await page.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByText(`Delivery #${failedId} is pending again`).waitFor();
    expect(await page.getByRole('button', { name: 'Redeliver' }).count()).toBe(0);
    const row = await t.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: failedId } });
    expect(row.status).toBe('pending');
    await context.close();
  });
});
