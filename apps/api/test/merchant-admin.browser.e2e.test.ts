/// <reference lib="dom" />
// Functions passed to page.evaluate run in Chromium: the DOM types describe them.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type FileBrowser } from './browser';
import { call, OPERATOR_TOKEN, operator, startPlatform, VERSION, type TestPlatform } from './harness';
import { adminApi, operatorPrivateApp } from './merchant-admin.helpers';
import { axeInEveryPage, expectAccessible, expectTidyLayout, screenshot, tabTo, watch } from './merchant-browser';
import { createOAuthApp, installWithToken } from './oauth.helpers';
import { at, feedbackApi, setClock, START } from './resource-feedback.helpers';

/**
 * The merchant admin of issues 18 and 47 in Chromium, as a merchant uses it: sign in, create a
 * definition (its type by name, then its rule fields; refused by the domain first, each problem a
 * sentence beside its field) with the keyboard alone, edit a value,
 * see it flagged after a rule change and fix it, create a private app, copy its token and call the
 * Admin API with it, refresh it (the old token works 5 more minutes on the manual clock, then not),
 * delete it, uninstall an app; an unknown admin path and a missing product lead on, an ended session
 * says so and a link from `./dev.sh link` signs in again. Every page: axe finds no serious or critical violation, no request
 * leaves the origin, no CSP violation; at 390 px nothing overflows and no word breaks in two.
 * Store hosts are `demo.localhost:<port>`: Chromium resolves *.localhost to loopback.
 */

const ROOT = join(__dirname, '..', '..', '..');
const run = promisify(execFile);

let t: TestPlatform;
let browser: FileBrowser;
let desktop: BrowserContext;
let phone: BrowserContext;
let page: Page;
let origin: string;
let lampId: string;
const watched: { problems: string[] }[] = [];

/** Every page the README shows, visited again at phone width at the end. */
const MAIN_PAGES: [string, string][] = [];

async function open(p: Page, path: string): Promise<void> {
  await p.goto(`${origin}${path}`);
  await expectAccessible(p);
  await expectTidyLayout(p);
}

beforeAll(async () => {
  browser = await launchChromium();
  t = await startPlatform({
    PLATFORM_BASE_DOMAIN: 'localhost',
    PLATFORM_RATE_LIMIT_CAPACITY: '100000',
    PLATFORM_METAFIELD_RECHECK_INTERVAL_MS: '50',
  });
  origin = `http://demo.localhost:${t.port}`;
  await setClock(t, START);
  const op = operator(t);
  await op.createStore('demo', { name: 'Demo Store', iana_timezone: 'Europe/Berlin' });
  const helper = await operatorPrivateApp(t, 'demo', 'Catalog Helper', [
    'read_products',
    'write_products',
    'read_metafields',
    'write_metafields',
    'read_inventory',
  ]);
  const ids = await op.createProducts('demo', [
    { title: 'Oak desk lamp with a rather long product title', vendor: 'Lumen & Co', product_type: 'Lighting' },
    { title: 'Walnut side table' },
    { title: 'Linen cushion cover' },
  ]);
  lampId = ids[0]!;
  await feedbackApi(t, helper.token).post(lampId, {
    state: 'require_actions',
    feedback_generated_at: at(-30),
    messages: ['Add at least one image'],
  });
  await feedbackApi(t, helper.token).post(ids[1]!, { state: 'success', feedback_generated_at: at(-5) });
  const api = adminApi(t, helper.token);
  for (const [key, access] of [
    ['care', 'MERCHANT_READ_WRITE'],
    ['material', 'MERCHANT_READ'],
    ['secret', 'PRIVATE'],
  ] as const) {
    const d = await api('/metafield_definition.json', {
      body: {
        definition: {
          owner_resource: 'products',
          namespace: 'catalog',
          key,
          name: `${key[0]!.toUpperCase()}${key.slice(1)}`,
          type: 'single_line_text_field',
          access: { admin: access },
        },
      },
    });
    expect(d.status, d.text).toBe(201);
    await api(`/products/${lampId}/metafields.json`, { body: { metafield: { namespace: 'catalog', key, value: `${key} of the lamp` } } });
  }
  const sub = await api('/webhooks.json', {
    body: { webhook: { topic: 'inventory_items/update', address: 'https://helper.example.com/webhooks/inventory' } },
  });
  await t.db.prisma.webhookSubscription.update({
    where: { id: BigInt(sub.body.webhook.id) },
    data: { status: 'disabled', disabledReason: 'failures', failureStreak: 8 },
  });
  // A private token 20 days from expiry: the home page counts it (decisions §5.4).
  await t.db.prisma.accessToken.updateMany({
    where: { installation: { appId: BigInt(helper.id) } },
    data: { expiresAt: new Date(Date.parse(START) + 20 * 86_400_000) },
  });
  const custom = await createOAuthApp(t, 'custom', ['read_products', 'read_store_information'], {
    store_handle: 'demo',
    name: 'Review Widgets',
  });
  await installWithToken(t, 'demo', custom);

  desktop = await axeInEveryPage(
    await browser.newContext({ viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] }),
  );
  phone = await axeInEveryPage(await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }));
  page = await desktop.newPage();
  watched.push(watch(page, origin));
  const link = await op.call('/stores/demo/admin_sessions', { method: 'POST' });
  await page.goto(link.body.url);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the merchant admin in Chromium (issue 18)', () => {
  it('shows what needs attention at home, each count linking to its list', async () => {
    await page.getByRole('heading', { name: 'Needs your attention' }).waitFor();
    await expectAccessible(page);
    for (const text of [
      '1 product an app says needs action',
      '1 webhook subscription disabled or failing',
      '1 private app token expiring within 30 days',
    ]) {
      expect(await page.getByRole('link', { name: text }).count(), text).toBe(1);
    }
    const nav = page.getByRole('navigation', { name: 'Merchant admin' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Products', 'Metafield definitions', 'Invalid values', 'Apps']);
    // One meaning per word (issue 47): the private app is under Private apps on both pages, not "installed".
    for (const path of ['/admin', '/admin/apps']) {
      await open(page, path);
      const privateApps = page.locator('section', { has: page.getByRole('heading', { name: 'Private apps', exact: true }) });
      expect(await privateApps.getByText('Catalog Helper').count(), path).toBeGreaterThan(0);
      const installed = page.locator('section', { has: page.getByRole('heading', { name: 'Installed apps', exact: true }) });
      expect(await installed.getByText('Review Widgets').count(), path).toBeGreaterThan(0);
      expect(await installed.getByText('Catalog Helper').count(), path).toBe(0);
    }
    await open(page, '/admin');
    await screenshot(page, 'home');
    MAIN_PAGES.push(['home', '/admin']);

    await page.getByRole('link', { name: '1 product an app says needs action' }).click();
    await page.getByRole('heading', { name: 'Products' }).waitFor();
    expect(await page.getByRole('row').count()).toBe(2);
    await open(page, '/admin/products?title=TABLE');
    expect(await page.getByRole('link', { name: 'Walnut side table', exact: true }).count()).toBe(1);
    expect(await page.getByRole('link', { name: /Oak desk lamp/ }).count()).toBe(0);
    await open(page, '/admin/products');
    await screenshot(page, 'products');
    MAIN_PAGES.push(['products', '/admin/products']);
  });

  it('creates a definition with the keyboard alone: its type by name, then its rule fields; refused by the domain in sentences first, then listed', async () => {
    await open(page, '/admin/metafield_definitions');
    expect(await page.getByText('Read-only: Catalog Helper lets you view it, not change it.').count()).toBe(1);
    expect(await page.getByRole('cell', { name: /^Secret/ }).count()).toBe(0);
    expect(await page.getByRole('cell', { name: /^Material/ }).count()).toBe(1);
    expect(await page.getByRole('cell', { name: 'Single line text single_line_text_field' }).count()).toBe(2);
    await screenshot(page, 'definitions');
    MAIN_PAGES.push(['definitions', '/admin/metafield_definitions']);

    await tabTo(page, 'a[href^="/admin/metafield_definitions/new"]');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Create definition' }).waitFor();
    await tabTo(page, '#type');
    // The types by their names; Single line text is the first.
    expect(await page.locator('#type option:checked').textContent()).toBe('Single line text');
    await expectAccessible(page);
    await screenshot(page, 'definition-type');
    MAIN_PAGES.push(['definition-type', '/admin/metafield_definitions/new']);
    await tabTo(page, 'button.primary');
    await page.keyboard.press('Enter');
    await page.getByLabel('Maximum characters').waitFor();
    // Only the rules of the type, each a field of its own (no "Rule N" slots, no JSON to type).
    expect(await page.getByLabel('Maximum decimal places').count()).toBe(0);
    expect(await page.getByText('Advanced', { exact: true }).count()).toBe(1);
    await tabTo(page, '#name');
    await page.keyboard.type('Subtitle');
    await page.keyboard.press('Tab');
    await page.keyboard.type('specs');
    await page.keyboard.press('Tab');
    await page.keyboard.type('ab');
    await tabTo(page, '[id="rule.min"]');
    await page.keyboard.type('20');
    await page.keyboard.press('Tab');
    await page.keyboard.type('12');
    await page.keyboard.press('Enter');
    await page.getByText('The definition was not created').waitFor();
    // The domain refused both; each problem is a sentence beside its field.
    expect(await page.locator('#key-error').textContent()).toBe('Is too short (minimum is 3 characters).');
    expect(await page.locator('#key').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('[id="rule.max-error"]').textContent()).toBe('Must not be less than the minimum.');
    expect(await page.locator('[id="rule.max"]').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page);
    await screenshot(page, 'definition-refused');
    MAIN_PAGES.push(['definition-new', '/admin/metafield_definitions/new?owner_resource=products&type=single_line_text_field']);

    await page.locator('#key').focus();
    await page.keyboard.press('Control+a');
    await page.keyboard.type('subtitle');
    await page.locator('[id="rule.min"]').focus();
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Delete');
    await page.keyboard.press('Enter');
    await page.getByText('The definition was created.').waitFor();
    expect(await page.getByRole('cell', { name: /^Subtitle/ }).count()).toBe(1);
    expect(await page.getByText('Maximum characters: 12').count()).toBe(1);
    const created = await t.db.prisma.metafieldDefinition.findFirstOrThrow({ where: { key: 'subtitle' } });
    expect(JSON.parse(created.validations)).toEqual([{ name: 'max', value: '12' }]);
  });

  it('edits a value, sees it refused by the rule with nothing saved, then saved', async () => {
    await open(page, `/admin/products/${lampId}`);
    await page.getByLabel('Subtitle').fill('A subtitle far over twelve');
    await page.getByLabel('Care').fill('Dust weekly');
    await page.getByRole('button', { name: 'Save values' }).click();
    await page.getByText('Nothing was saved').waitFor();
    expect(await page.getByText('Must be at most 12 characters.').count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'product-refused');
    const care = await t.db.prisma.metafield.findFirstOrThrow({ where: { key: 'care' } });
    expect(care.value).toBe('care of the lamp');

    await page.getByLabel('Subtitle').fill('Warm light');
    await page.getByRole('button', { name: 'Save values' }).click();
    await page.getByText('Saved: 2 values written.').waitFor();
    await screenshot(page, 'product');
    MAIN_PAGES.push(['product', `/admin/products/${lampId}`]);
  });

  it('flags the value after a rule change (background re-check), lists it with its rule, and clears it once fixed', async () => {
    await open(page, '/admin/metafield_definitions');
    await page.getByRole('link', { name: 'Edit Subtitle' }).click();
    await page.getByLabel('Maximum characters').fill('5');
    await page.getByRole('button', { name: 'Save definition' }).click();
    await page.getByText('The definition was saved.').waitFor();
    // Invalid values are in the navigation (issue 47).
    for (let i = 0; i < 100; i++) {
      await page.getByRole('navigation', { name: 'Merchant admin' }).getByRole('link', { name: 'Invalid values' }).click();
      await page.getByRole('heading', { name: 'Invalid values' }).waitFor();
      if ((await page.getByText('Must be at most 5 characters.').count()) > 0) break;
      await page.waitForTimeout(100);
    }
    await expectAccessible(page);
    await expectTidyLayout(page);
    expect(await page.getByRole('cell', { name: 'Must be at most 5 characters.' }).count()).toBe(1);
    await screenshot(page, 'invalid-values');
    MAIN_PAGES.push(['invalid-values', '/admin/metafields?valid=false']);
    await page.getByRole('link', { name: /^Fix/ }).click();
    await page.getByText('Marked invalid').waitFor();
    await page.getByLabel('Subtitle').fill('Warm');
    await page.getByRole('button', { name: 'Save values' }).click();
    await page.getByText('Saved: 1 value written.').waitFor();
    await open(page, '/admin/metafields?valid=false');
    expect(await page.getByText('No value is marked invalid.').count()).toBe(1);
  });

  it('creates a private app, copies its token and calls the Admin API with it; refreshes; deletes', async () => {
    const works = async (token: string) => (await call(`${t.origin}/admin/openapi/${VERSION}/products/products.json`, { token })).status;
    await open(page, '/admin/apps');
    await screenshot(page, 'apps');
    MAIN_PAGES.push(['apps', '/admin/apps']);
    await page.getByRole('link', { name: 'Create private app' }).click();
    await page.getByLabel('App name').fill('Price Robot');
    await page.locator('input[name="scope.read_products"]').check();
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.getByRole('heading', { name: 'Price Robot is created' }).waitFor();
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Copy token' }).click();
    await page.getByText('Copied').waitFor();
    const token = await page.evaluate(() => navigator.clipboard.readText());
    expect(token).toBe(await page.locator('#token-value').inputValue());
    expect(await works(token)).toBe(200);
    expect(await page.getByText('2029-11-22 05:00:00 +01:00').count()).toBe(1);
    await screenshot(page, 'private-token');

    await open(page, '/admin/apps');
    await page.getByRole('link', { name: 'Refresh token of Price Robot' }).click();
    await page.getByRole('button', { name: 'Refresh token' }).click();
    await page.getByRole('heading', { name: 'New token for Price Robot' }).waitFor();
    expect(await page.getByText(/keeps working until 2026-11-22 05:05:00 \+01:00/).count()).toBe(1);
    const fresh = await page.locator('#token-value').inputValue();
    expect([await works(token), await works(fresh)]).toEqual([200, 200]);
    await operator(t).advanceClock(5 * 60 + 1);
    expect([await works(token), await works(fresh)]).toEqual([401, 200]);

    await open(page, '/admin/apps');
    await page.getByRole('link', { name: 'Delete app Price Robot' }).click();
    await page.getByRole('heading', { name: 'Delete Price Robot?' }).waitFor();
    await page.getByRole('button', { name: 'Delete app' }).click();
    await page.getByText('The private app was deleted').waitFor();
    expect(await works(fresh)).toBe(401);
  });

  it('uninstalls an installed app after a confirmation', async () => {
    await page.getByRole('link', { name: 'Uninstall Review Widgets' }).click();
    await page.getByRole('button', { name: 'Uninstall app' }).click();
    await page.getByText('The app was uninstalled').waitFor();
    expect(await page.getByText('Review Widgets').count()).toBe(0);
    expect(watched.flatMap((w) => w.problems)).toEqual([]);
  });

  it('leads on from an unknown admin path and a missing product: a page with the navigation and Sign out', async () => {
    for (const path of ['/admin/no-such-page', '/admin/products/999999']) {
      const answer = await page.goto(`${origin}${path}`);
      expect(answer?.status(), path).toBe(404);
      await expectAccessible(page);
      await expectTidyLayout(page);
      expect(await page.getByRole('button', { name: 'Sign out' }).count(), path).toBe(1);
      expect(await page.getByRole('link', { name: 'Demo Store' }).count(), path).toBe(1);
    }
    await screenshot(page, 'not-found');
    await open(page, '/admin/no-such-page');
    await page.getByRole('navigation', { name: 'Merchant admin' }).getByRole('link', { name: 'Products' }).click();
    await page.getByRole('heading', { name: 'Products' }).waitFor();
    expect(watched.flatMap((w) => w.problems)).toEqual([]);
  });

  it('says when the session has ended, and a link from ./dev.sh link signs in again without a restart', async () => {
    await operator(t).advanceClock(8 * 3600 + 1);
    await page.goto(`${origin}/admin/products`);
    await page.getByRole('heading', { name: 'Your session has ended' }).waitFor();
    await expectAccessible(page);
    await expectTidyLayout(page);
    expect(await page.getByText('./dev.sh link demo').count()).toBe(1);
    await screenshot(page, 'session-ended');
    const { stdout } = await run(join(ROOT, 'dev.sh'), ['link'], {
      env: { ...process.env, HOST: '127.0.0.1', PORT: String(t.port), PLATFORM_OPERATOR_TOKEN: OPERATOR_TOKEN },
    });
    // The merchant opens the printed link in a new tab, then continues where they were.
    const tab = await desktop.newPage();
    watched.push(watch(tab, origin));
    await tab.goto(stdout.trim());
    await tab.getByRole('heading', { name: 'Needs your attention' }).waitFor();
    await tab.close();
    await page.getByRole('link', { name: 'I have signed in: continue' }).click();
    await page.getByRole('heading', { name: 'Products' }).waitFor();
    expect(watched.flatMap((w) => w.problems)).toEqual([]);
  });

  it('lays every main page out at 390 px: stacked rows, nothing wider than the screen, no word broken in two', async () => {
    const small = await phone.newPage();
    const seen = watch(small, origin);
    const link = await operator(t).call('/stores/demo/admin_sessions', { method: 'POST' });
    await small.goto(link.body.url);
    for (const [name, path] of MAIN_PAGES) {
      await open(small, path);
      await screenshot(small, name);
    }
    expect(seen.problems).toEqual([]);
  });
});
