/// <reference lib="dom" />
// Functions passed to page.evaluate run in Chromium: the DOM types describe them.
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';

// What the merchant admin's browser tests check on every page (issue 18, 5); not a test file itself.

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Screenshots go to docs/images/ (shown in the README) when UPDATE_SCREENSHOTS=1, to a temp folder
 * when SCREENSHOTS=1 (an ordinary run leaves the work tree as it was: a fresh token on a page differs
 * each run), and nowhere otherwise.
 */
const TAKE_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' || process.env.SCREENSHOTS === '1';
export const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? join(__dirname, '..', '..', '..', 'docs', 'images')
    : join(tmpdir(), 'merchant-admin-screenshots');
if (TAKE_SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });

export async function screenshot(page: Page, name: string): Promise<void> {
  // Only for the README's images (or for a look at a failing run): an ordinary run takes none
  // (20 full-page PNGs, about 3.7 s of the merchant admin's 25 s file, 2026-12-02).
  if (!TAKE_SCREENSHOTS) return;
  const width = page.viewportSize()?.width ?? 0;
  await page.screenshot({ path: join(SCREENSHOTS, `merchant-${name}-${width}.png`), fullPage: true });
}

/**
 * axe-core in every page of `context` from the start (Chromium compiles it with the page: about
 * 75 ms a page, against about 220 ms to send its 550 kB through the driver for each check).
 */
export async function axeInEveryPage(context: BrowserContext): Promise<BrowserContext> {
  await context.addInitScript(AXE_SOURCE);
  return context;
}

/**
 * axe-core run inside the page (its source evaluated through the driver, which the page's CSP does
 * not govern: the page itself still loads nothing but its own files). No serious or critical
 * violation on any page.
 */
export async function expectAccessible(page: Page): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            context: Document,
            options: object,
          ) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  const grave = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(grave, `${page.url()}: ${JSON.stringify(grave)}`).toEqual([]);
}

/**
 * Watches a page for the whole test: every request must stay on the store's origin, and the
 * browser must report no Content-Security-Policy violation and no script error.
 */
export function watch(page: Page, origin: string): { problems: string[] } {
  const problems: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol !== 'data:' && url.origin !== origin) problems.push(`request left the origin: ${request.url()}`);
  });
  page.on('console', (message) => {
    // A refused form's 422 (or the browser's own /favicon.ico 404) is logged as a failed load: the
    // tests check those statuses themselves. Anything else (a CSP refusal above all) is a problem.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource: the server responded with a status of 4')) {
      problems.push(`console: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`script error: ${error.message}`));
  return { problems };
}

/**
 * At any width, 390 px included (issue 18, 0): nothing wider than the screen, and no word of a
 * table broken in two (a word whose letters sit on two lines). Codes, addresses and tokens may break anywhere: a
 * 60-character address has no other way to fit.
 */
export async function expectTidyLayout(page: Page): Promise<void> {
  const found = await page.evaluate(() => {
    const broken: string[] = [];
    for (const cell of Array.from(document.querySelectorAll('td, th'))) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.parentElement?.closest('code, .token, .visually-hidden')) continue;
        const text = node.textContent ?? '';
        for (const match of text.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index!);
          range.setEnd(node, match.index! + match[0].length);
          const lines = new Set(
            Array.from(range.getClientRects())
              .filter((r) => r.width > 0)
              .map((r) => Math.round(r.top)),
          );
          if (lines.size > 1) broken.push(match[0]);
        }
      }
    }
    return { broken, overflow: document.documentElement.scrollWidth - window.innerWidth };
  });
  expect(found, page.url()).toEqual({ broken: [], overflow: 0 });
}

/** Presses Tab until the focused element matches `selector` (keyboard-only use); fails after `max` presses. */
export async function tabTo(page: Page, selector: string, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
  }
  throw new Error(`${selector} is not reachable with Tab on ${page.url()}`);
}
