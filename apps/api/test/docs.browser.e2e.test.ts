import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type FileBrowser } from './browser';
import { startPlatform, type TestPlatform } from './harness';

/*
 * decisions §12.3, §12.9: the API reference at /docs renders the served OpenAPI 3.1 document in a
 * real browser, with the rules it states (a required body, a field's format, an example).
 */

let t: TestPlatform;
let browser: FileBrowser;

beforeAll(async () => {
  t = await startPlatform();
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('/docs', () => {
  it('renders every operation of the document, and an operation with its required body and example, under its strict CSP with no violation', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // The page's Content-Security-Policy (service-endpoints.e2e.test.ts checks its header) refuses
    // nothing the reference needs: Chromium reports each refusal on the console.
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${t.origin}/docs`);
    await page.waitForFunction(() => document.querySelectorAll('.opblock').length >= 47, null, { timeout: 60_000 });
    expect(await page.locator('.opblock').count()).toBe(47);
    await expect(page.locator('.version-stamp').first().innerText()).resolves.toContain('OAS 3.1');
    await page
      .locator('.opblock-summary-path', { hasText: /^\/platform\/v1\/stores$/ })
      .first()
      .click();
    const operation = page.locator('.opblock.is-open').first();
    await operation.locator('.opblock-section-request-body').waitFor({ timeout: 30_000 });
    const text = await operation.innerText();
    expect(text).toContain('required');
    expect(text).toContain('"email": "owner@demo.example"');
    expect(errors).toEqual([]);
    expect(violations).toEqual([]);
  }, 120_000);
});
