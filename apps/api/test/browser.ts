import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's full Chromium: the cluster suite's check of the CA a merchant's browser trusts. */
export const CHROMIUM = '/usr/bin/chromium';
/**
 * Debian's Chromium without the browser's own UI (package `chromium-headless-shell`, the same
 * Chromium 156 build: the same Blink and V8), what Playwright itself runs for headless tests. The
 * API's browser files drive it: measured 2026-12-02, 30 to 42% less CPU than the full browser for the
 * same files (merchant admin 63 -> 45 s, consent 33 -> 19 s, /docs 28 -> 21.5 s), the difference
 * being the full browser's UI process and its WebUI renderers, which a test never looks at.
 */
export const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';

/**
 * A Chromium from Debian's packages, installed when missing (as .ci/run installs PostgreSQL):
 * browser downloads cannot reach their hosts here, Debian's packages can. Nothing is skipped: no
 * browser, no pass.
 */
export function ensureChromium(executable: typeof CHROMIUM | typeof HEADLESS_SHELL = HEADLESS_SHELL): string {
  if (existsSync(executable)) return executable;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const pkg = basename(executable);
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: 'inherit', env });
  if (!existsSync(executable)) throw new Error(`${pkg} is not at ${executable} after apt-get install ${pkg}`);
  return executable;
}

let shared: Promise<Browser> | undefined;

/** What a test file drives: contexts and pages of its own in the worker's Chromium. */
export interface FileBrowser {
  newContext: Browser['newContext'];
  newPage: Browser['newPage'];
  /** Closes every context (and page) this file opened; the browser stays for the worker's next file. */
  close(): Promise<void>;
}

/**
 * Chromium for one test file. One browser per test worker, whose files run one after another (a
 * launch costs about 2 s of CPU on 2 cores); each file gets contexts of its own (cookies, storage,
 * permissions), as a new browser would give it. Playwright ends the browser when the worker exits.
 */
export async function launchChromium(): Promise<FileBrowser> {
  if (!shared) {
    // As root Chromium needs --no-sandbox; playwright-core drives the system executable (no download).
    // --disable-gpu: pages composited in software without a GPU process (there is no GPU here, only
    // its emulation): about 10% less CPU for the merchant admin's file (49-51 -> 45-46 s, 2026-12-02).
    const launched = chromium.launch({ executablePath: ensureChromium(), args: ['--no-sandbox', '--disable-gpu'] });
    shared = launched;
    launched.then(
      (browser) => browser.on('disconnected', () => shared === launched && (shared = undefined)),
      () => shared === launched && (shared = undefined),
    );
  }
  const browser = await shared;
  const contexts: BrowserContext[] = [];
  const pages: Page[] = [];
  return {
    newContext: async (options) => {
      const context = await browser.newContext(options);
      contexts.push(context);
      return context;
    },
    newPage: async (options) => {
      const page = await browser.newPage(options);
      pages.push(page);
      return page;
    },
    async close() {
      await Promise.all([...pages.map((p) => p.close()), ...contexts.map((c) => c.close())]);
    },
  };
}
