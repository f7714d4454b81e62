import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, operator, startPlatform, VERSION, type Answer, type TestPlatform } from './harness';
import { signIn, storeHost } from './oauth.helpers';
import { at, feedbackApi, privateApp, setClock, START, ZONE } from './resource-feedback.helpers';
import { recordAttempts } from './webhooks.helpers';

/**
 * The merchant's products, resource feedback, apps and deliveries pages (issues 9 and 10; docs/oauth.md
 * "Merchant pages"): real HTTP on the store's host, a signed-in session, the real database.
 */

let t: TestPlatform;
const op = () => operator(t);
let cookie: string;
let productId: string;
let otherProductId: string;
let checker: { id: string; token: string };
let lister: { id: string; token: string };
let foreignApp: { id: string; token: string };
let failedId: bigint;
let deliveredId: bigint;
let foreignDeliveryId: bigint;

const page = (handle: string, path: string, withCookie: string | undefined = cookie) =>
  call(`${t.origin}${path}`, { headers: { host: storeHost(t, handle), ...(withCookie ? { cookie: withCookie } : {}) } });

function post(handle: string, path: string, rawBody: string, headers: Record<string, string> = {}) {
  return call(`${t.origin}${path}`, {
    method: 'POST',
    rawBody,
    headers: { host: storeHost(t, handle), cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

function expectPage(r: Answer, status: number, text?: RegExp) {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(r.headers.get('content-security-policy')).toContain("script-src 'none'");
  expect(r.headers.get('cache-control')).toBe('no-store');
  if (text) expect(r.text).toMatch(text);
}

const formToken = (r: Answer) => /name="form_token" value="([^"]+)"/.exec(r.text)![1]!;
const deliveriesPath = (appId: string) => `/admin/apps/${appId}/deliveries`;
const redeliverPath = (appId: string, id: bigint) => `${deliveriesPath(appId)}/${id}/redeliver`;

async function subscribeAndEmit(handle: string, token: string, itemId: string, address: string) {
  const sub = await call(`${t.origin}/admin/openapi/${VERSION}/webhooks.json`, {
    token,
    body: { webhook: { topic: 'inventory_items/update', address } },
  });
  if (sub.status !== 201) throw new Error(`webhook ${sub.status} ${sub.text}`);
  const r = await op().call(`/stores/${handle}/inventory_items/${itemId}`, {
    method: 'PUT',
    body: { inventory_item: { sku: `S-${address.length}` } },
  });
  if (r.status !== 200) throw new Error(`emit ${r.status} ${r.text}`);
}

beforeAll(async () => {
  t = await startPlatform({ PLATFORM_RATE_LIMIT_CAPACITY: '100000' });
  await setClock(t, START);
  await op().createStore('shop', { name: 'Corner Shop', iana_timezone: ZONE });
  await op().createStore('elsewhere');
  const scopes = ['read_products', 'write_products', 'read_inventory'];
  checker = await privateApp(t, 'shop', 'Checker <b>One</b>', scopes);
  lister = await privateApp(t, 'shop', 'Lister Two', scopes);
  foreignApp = await privateApp(t, 'elsewhere', 'Foreign App', scopes);
  const created = await op().call('/stores/shop/products', { body: { product: { title: 'Desk <Lamp>' } } });
  productId = created.body.product.id;
  const foreign = await op().call('/stores/elsewhere/products', { body: { product: { title: 'Foreign' } } });
  otherProductId = foreign.body.product.id;
  await op().createProducts(
    'shop',
    Array.from({ length: 60 }, (_, i) => ({ title: `Filler ${i + 1}` })),
  );

  const one = await feedbackApi(t, checker.token).post(productId, {
    state: 'require_actions',
    feedback_generated_at: at(-30),
    messages: ['<script>alert(1)</script>', 'Add an image'],
  });
  expect(one.status).toBe(201);
  expect((await feedbackApi(t, lister.token).post(productId, { state: 'success', feedback_generated_at: at(-10) })).status).toBe(201);
  expect((await feedbackApi(t, foreignApp.token).post(otherProductId, { state: 'success', feedback_generated_at: at(-10) })).status).toBe(
    201,
  );

  await subscribeAndEmit('shop', checker.token, created.body.product.variants[0].inventory_item_id, 'https://checker.example.com/in');
  await subscribeAndEmit('shop', checker.token, created.body.product.variants[0].inventory_item_id, 'https://checker.example.com/in2');
  await subscribeAndEmit(
    'elsewhere',
    foreignApp.token,
    foreign.body.product.variants[0].inventory_item_id,
    'https://foreign.example.com/in',
  );
  const mine = await t.db.prisma.webhookDelivery.findMany({ where: { appId: BigInt(checker.id) }, orderBy: { id: 'asc' } });
  // The first delivery failed its attempts (as the sender records them); the last was delivered.
  failedId = mine[0]!.id;
  deliveredId = mine[mine.length - 1]!.id;
  await recordAttempts(t, failedId, [
    { at: new Date(START), durationMs: 5000, error: 'timeout after 5 s' },
    { at: new Date(START), durationMs: 37, status: 500, error: 'HTTP 500 <oops>', body: 'no' },
  ]);
  await t.db.prisma.webhookDelivery.update({
    where: { id: deliveredId },
    data: { status: 'delivered', attempts: 1, deliveredAt: new Date(START) },
  });
  foreignDeliveryId = (await t.db.prisma.webhookDelivery.findFirstOrThrow({ where: { appId: BigInt(foreignApp.id) } })).id;
  await t.db.prisma.webhookDelivery.update({
    where: { id: foreignDeliveryId },
    data: { status: 'failed', lastError: 'foreign secret error' },
  });
  cookie = await signIn(t, 'shop');
}, 120_000);
afterAll(async () => t?.close());

describe('signed out', () => {
  it("shows the sign-in page (401) and none of the store's data on every new page", async () => {
    for (const path of ['/admin/products', `/admin/products/${productId}/resource_feedback`, '/admin/apps', deliveriesPath(checker.id)]) {
      const r = await page('shop', path, '');
      expectPage(r, 401, /Sign in to continue/);
      expect(r.text).not.toMatch(/Checker|Lister|Desk|alert|timeout|checker\.example/);
    }
    // Another store's session is no session here.
    const foreignCookie = await signIn(t, 'elsewhere');
    expectPage(await page('shop', '/admin/apps', foreignCookie), 401, /Sign in to continue/);
    const r = await call(`${t.origin}${redeliverPath(checker.id, failedId)}`, {
      method: 'POST',
      rawBody: 'form_token=x',
      headers: { host: storeHost(t, 'shop'), 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectPage(r, 401, /Sign in to continue/);
    expect((await t.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: failedId } })).status).toBe('failed');
  });
});

describe('products and their resource feedback (issue 9)', () => {
  it('lists products 50 a page by id (a table row each), each with feedback linking to its feedback page', async () => {
    const first = await page('shop', '/admin/products');
    expectPage(first, 200, /Desk &lt;Lamp&gt;/);
    expect(first.text).toContain(`href="/admin/products/${productId}/resource_feedback"`);
    expect(first.text).not.toContain('rel="prev"');
    expect(first.text.match(/<tr><td /g)).toHaveLength(50);
    const next = /href="([^"]+)">Next/.exec(first.text)![1]!.replace(/&amp;/g, '&');
    const second = await page('shop', next);
    expectPage(second, 200, /Filler 60/);
    expect(second.text.match(/<tr><td /g)).toHaveLength(11);
    expect(second.text).not.toContain('rel="next"');
    const prev = /href="([^"]+)">Previous/.exec(second.text)![1]!;
    const back = await page('shop', prev);
    expect(back.text.match(/<tr><td /g)).toHaveLength(50);
    expect(back.text).toContain('Desk &lt;Lamp&gt;');
    expect(back.text).not.toContain('rel="prev"');
    expect(back.text).not.toContain('Foreign');
    expectPage(await page('shop', '/admin/products?after=abc'), 400, /after: must be a product id/);
    expectPage(await page('shop', '/admin/products?after=1&before=2'), 400, /not both/);
  });

  it("shows every app's feedback on a product: names, states in words, messages as text, times in the store's zone", async () => {
    const r = await page('shop', `/admin/products/${productId}/resource_feedback`);
    expectPage(r, 200, /Desk &lt;Lamp&gt;/);
    expect(r.text).toContain('Checker &lt;b&gt;One&lt;/b&gt;');
    expect(r.text).toContain('Lister Two');
    expect(r.text).toContain('Action required');
    expect(r.text).toContain('All good');
    expect(r.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(r.text).not.toContain('<script>');
    expect(r.text).toContain('Add an image');
    expect(r.text).toContain('<time datetime="2026-11-22T11:59:30+08:00">2026-11-22 11:59:30 +08:00</time>'); // feedback_generated_at of the first, in Asia/Shanghai
    expect(r.text).toContain('2026-11-22T12:00:00+08:00');
  });

  it('refuses a feedback time in another ISO 8601 spelling (422), and shows a lax one stored earlier as sent, never a 500 (issue 14)', async () => {
    const refused = await feedbackApi(t, lister.token).post(productId, { state: 'success', feedback_generated_at: '2026-11-25T10:00+08' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toMatch(/feedback_generated_at: must be an ISO 8601 date and time/);
    // What a laxer version accepted and stored: the page shows it as text instead of failing.
    const row = await t.db.prisma.resourceFeedback.findFirstOrThrow({ where: { appId: BigInt(lister.id), productId: BigInt(productId) } });
    await t.db.prisma.resourceFeedback.update({ where: { id: row.id }, data: { feedbackGeneratedAtText: '2026-11-25T10:00+08' } });
    const r = await page('shop', `/admin/products/${productId}/resource_feedback`);
    expectPage(r, 200, /2026-11-25T10:00\+08/);
  });

  it("answers another store's product, an unknown or malformed id with the 404 page", async () => {
    for (const id of [otherProductId, '999999', 'abc', '-1']) {
      const r = await page('shop', `/admin/products/${id}/resource_feedback`);
      expectPage(r, 404, /Not found/);
      expect(r.text).not.toContain('Foreign');
    }
  });
});

describe('apps and their deliveries (issue 10)', () => {
  it('lists the installed apps, each linking to its deliveries page; the home page links there too', async () => {
    const r = await page('shop', '/admin/apps');
    expectPage(r, 200, /Lister Two/);
    expect(r.text).toContain(`href="${deliveriesPath(checker.id)}"`);
    expect(r.text).toContain(`href="${deliveriesPath(lister.id)}"`);
    expect(r.text).not.toContain('Foreign App');
    const home = await page('shop', '/admin');
    expect(home.text).toContain('href="/admin/products"');
    expect(home.text).toContain(`href="${deliveriesPath(checker.id)}"`);
  });

  it('shows the subscriptions and the newest deliveries first, a failed one with its attempts, error and Redeliver', async () => {
    await t.db.prisma.webhookSubscription.updateMany({
      where: { appId: BigInt(checker.id), address: 'https://checker.example.com/in2' },
      data: { status: 'disabled', disabledReason: 'gone' },
    });
    const r = await page('shop', deliveriesPath(checker.id));
    expectPage(r, 200, /Checker &lt;b&gt;One&lt;\/b&gt;/);
    expect(r.text).toContain('https://checker.example.com/in');
    expect(r.text).toContain('the address answered 410 Gone');
    expect(r.text.indexOf(`#${deliveredId} `)).toBeLessThan(r.text.indexOf(`#${failedId} `));
    expect(r.text).toContain('timeout after 5 s');
    expect(r.text).toContain('HTTP 500 &lt;oops&gt;');
    expect(r.text).toContain('no answer · 5000 ms');
    expect(r.text).toContain('HTTP 500 · 37 ms');
    expect(r.text).toContain(`action="${redeliverPath(checker.id, failedId)}"`);
    expect(r.text).not.toContain(`action="${redeliverPath(checker.id, deliveredId)}"`);
    expect(r.text).not.toContain('foreign secret error');
    await t.db.prisma.webhookSubscription.updateMany({
      where: { appId: BigInt(checker.id) },
      data: { status: 'enabled', disabledReason: null },
    });
    const none = await page('shop', deliveriesPath(lister.id));
    expectPage(none, 200, /No deliveries yet/);
  });

  it("answers another store's app, an app not installed here, and unknown ids with the 404 page", async () => {
    for (const id of [foreignApp.id, '999999', 'x']) expectPage(await page('shop', deliveriesPath(id)), 404, /Not found/);
  });

  it('refuses a redelivery without the form token or from another origin (403), and foreign deliveries (404)', async () => {
    const token = formToken(await page('shop', deliveriesPath(checker.id)));
    expectPage(await post('shop', redeliverPath(checker.id, failedId), ''), 403, /not sent from your signed-in page/);
    expectPage(await post('shop', redeliverPath(checker.id, failedId), 'form_token=forged'), 403, /not sent from your signed-in page/);
    expectPage(
      await post('shop', redeliverPath(checker.id, failedId), `form_token=${token}`, { origin: 'https://evil.example.com' }),
      403,
      /another site/,
    );
    expectPage(await post('shop', redeliverPath(foreignApp.id, foreignDeliveryId), `form_token=${token}`), 404, /Not found/);
    expectPage(await post('shop', redeliverPath(checker.id, foreignDeliveryId), `form_token=${token}`), 404, /Not found/);
    expectPage(await post('shop', redeliverPath(lister.id, failedId), `form_token=${token}`), 404, /Not found/);
    const statuses = await t.db.prisma.webhookDelivery.findMany({
      where: { id: { in: [failedId, foreignDeliveryId] } },
      select: { status: true },
    });
    expect(statuses.map((s) => s.status)).toEqual(['failed', 'failed']);
  });

  it('redelivers a failed delivery once: back to pending, then a notice (422) on the second press', async () => {
    const token = formToken(await page('shop', deliveriesPath(checker.id)));
    const origin = `http://${storeHost(t, 'shop')}`;
    const r = await post('shop', redeliverPath(checker.id, failedId), `form_token=${token}`, { origin });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe(`${deliveriesPath(checker.id)}?redelivered=${failedId}`);
    const row = await t.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: failedId } });
    expect(row).toMatchObject({ status: 'pending', attempts: 0, lastError: null });
    const after = await page('shop', r.headers.get('location')!);
    expectPage(after, 200, new RegExp(`Delivery #${failedId} is pending again`));
    expect(after.text).not.toContain(`action="${redeliverPath(checker.id, failedId)}"`);

    const again = await post('shop', redeliverPath(checker.id, failedId), `form_token=${token}`, { origin });
    expectPage(again, 422, /only a failed delivery can be redelivered \(this one is pending\)/);
    const delivered = await post('shop', redeliverPath(checker.id, deliveredId), `form_token=${token}`, { origin });
    expectPage(delivered, 422, /this one is delivered/);
    expect((await t.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: deliveredId } })).status).toBe('delivered');
  });

  it('redelivers once when Redeliver is pressed twice at once: one 303, one 422 notice', async () => {
    await t.db.prisma.webhookDelivery.update({ where: { id: failedId }, data: { status: 'failed', lastError: 'HTTP 500' } });
    const token = formToken(await page('shop', deliveriesPath(checker.id)));
    const answers = await Promise.all([1, 2].map(() => post('shop', redeliverPath(checker.id, failedId), `form_token=${token}`)));
    expect(answers.map((a) => a.status).sort()).toEqual([303, 422]);
    expect((await t.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: failedId } })).status).toBe('pending');
    // The notice speaks only of a pending delivery of this page.
    expect((await page('shop', `${deliveriesPath(checker.id)}?redelivered=${deliveredId}`)).text).not.toContain('pending again');
    expect((await page('shop', `${deliveriesPath(checker.id)}?redelivered=${foreignDeliveryId}`)).text).not.toContain('pending again');
  });

  it("refuses a redelivery when the delivery's subscription is disabled, with a notice (422)", async () => {
    await t.db.prisma.webhookDelivery.update({ where: { id: failedId }, data: { status: 'failed' } });
    const row = await t.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: failedId } });
    await t.db.prisma.webhookSubscription.update({
      where: { id: row.subscriptionId },
      data: { status: 'disabled', disabledReason: 'failures' },
    });
    const shown = await page('shop', deliveriesPath(checker.id));
    // No button that can only fail: the page says why instead.
    expect(shown.text).not.toContain(`action="${redeliverPath(checker.id, failedId)}"`);
    expect(shown.text).toContain('Its subscription is disabled: the app re-enables it before a redelivery.');
    const token = formToken(shown);
    expectPage(await post('shop', redeliverPath(checker.id, failedId), `form_token=${token}`), 422, /disabled; enable it first/);
    expect((await t.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: failedId } })).status).toBe('failed');
  });
});
