import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, OPERATOR_TOKEN, operator, startPlatform, VERSION, type Answer, type TestPlatform } from './harness';
import { expectPage, merchantOf, type MerchantClient } from './merchant-admin.helpers';
import { storeHost } from './oauth.helpers';

/**
 * No dead ends in the merchant admin (issue 47), over real HTTP: a browser asking a store's host for
 * an unknown /admin/... path, a product that does not exist, with an ended session, or /admin on
 * the bare host gets a page that leads on; every other client gets the JSON it always got. And a
 * fresh sign-in link from `./dev.sh link` while the API runs.
 */

const ROOT = join(__dirname, '..', '..', '..');
const run = promisify(execFile);
const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let t: TestPlatform;
let m: MerchantClient;
let productId: string;

/** A GET on a store's host as a browser sends it (or as `accept` says). */
const browse = (path: string, options: { cookie?: string; accept?: string; host?: string } = {}) =>
  call(`${t.origin}${path}`, {
    headers: {
      host: options.host ?? storeHost(t, 'shop'),
      accept: options.accept ?? HTML,
      ...(options.cookie ? { cookie: options.cookie } : {}),
    },
  });

const NAV = 'aria-label="Merchant admin"';
const SIGN_OUT = 'action="/admin/sign-out"';

function expectJsonNotFound(r: Answer) {
  expect(r.status).toBe(404);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(r.text).toBe('{"errors":"Not Found"}');
  expect(r.headers.get('traceid')).toBeTruthy();
}

beforeAll(async () => {
  t = await startPlatform();
  await operator(t).createStore('shop', { name: 'Corner Shop' });
  productId = (await operator(t).createProducts('shop', [{ title: 'Desk lamp' }]))[0]!;
  m = await merchantOf(t, 'shop');
}, 120_000);
afterAll(async () => t?.close());

describe('an unknown /admin/... path on a store host', () => {
  it('is a 404 page of the merchant admin for a browser: navigation and Sign out when signed in', async () => {
    for (const path of ['/admin/nope', '/admin/products/1/nothing-here', '/admin/', '/admin/metafield_definitions/1/x?y=z']) {
      const r = await browse(path, { cookie: m.cookie });
      expectPage(r, 404, /There is no page at this address/);
      expect(r.text, path).toContain(NAV);
      expect(r.text, path).toContain(SIGN_OUT);
      expect(r.text, path).toContain('<a class="brand" href="/admin">Corner Shop</a>');
      expect(r.headers.get('traceid'), path).toBeTruthy();
    }
  });

  it('signed out: the store is named and the way home shown, nothing of the signed-in pages', async () => {
    const r = await browse('/admin/nope');
    expectPage(r, 404, /There is no page at this address/);
    expect(r.text).toContain('Corner Shop');
    expect(r.text).toContain('href="/admin">Go to the home page');
    expect(r.text).not.toContain(NAV);
    expect(r.text).not.toContain(SIGN_OUT);
  });

  it('stays the JSON 404 for API clients, for the Admin API paths and on the bare host', async () => {
    expectJsonNotFound(await browse('/admin/nope', { cookie: m.cookie, accept: '*/*' }));
    expectJsonNotFound(await browse('/admin/nope', { accept: 'application/json' }));
    expectJsonNotFound(await call(`${t.origin}/admin/nope`, { headers: { accept: HTML } }));
    const api = await browse(`/admin/openapi/${VERSION}/nothing.json`, { cookie: m.cookie });
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toMatch(/^application\/json/);
    // A post is no page to show.
    const posted = await call(`${t.origin}/admin/nope`, {
      method: 'POST',
      headers: { host: storeHost(t, 'shop'), accept: HTML },
      body: {},
    });
    expect(posted.status).toBe(404);
    expect(posted.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('a page of a known route that finds nothing', () => {
  it("answers a product that does not exist with the store's page: navigation, Sign out, the API's message", async () => {
    const r = await browse('/admin/products/999999', { cookie: m.cookie });
    expectPage(r, 404, /Product not found/);
    expect(r.text).toContain(NAV);
    expect(r.text).toContain(SIGN_OUT);
    expect(r.text).not.toContain('<span class="brand">Platform</span>');
    // What exists is untouched by the not-found pages.
    expectPage(await browse(`/admin/products/${productId}`, { cookie: m.cookie }), 200, /Desk lamp/);
  });
});

describe('signed out, or never signed in', () => {
  it('says so when a session has ended, and how to get a new link', async () => {
    const cookie = (await merchantOf(t, 'shop')).cookie;
    expect((await browse('/admin/products', { cookie })).status).toBe(200);
    await operator(t).advanceClock(8 * 3600 + 1);
    const ended = await browse('/admin/products', { cookie });
    expectPage(ended, 401, /Your session has ended/);
    expect(ended.text).toContain('<code>./dev.sh link shop</code>');
    expect(ended.text).toContain('href="/admin/products">I have signed in: continue');
    // A form posted after the session ended is answered the same way, before its body is read.
    const posted = await call(`${t.origin}/admin/private_apps`, {
      method: 'POST',
      rawBody: 'form_token=x&name=Late',
      headers: { host: storeHost(t, 'shop'), cookie, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectPage(posted, 401, /Your session has ended/);
    const never = await browse('/admin/products');
    expectPage(never, 401, /Sign in to continue/);
    expect(never.text).not.toContain('Your session has ended');
  });

  it('answers a used sign-in link with a page of the store that says how to get a new one', async () => {
    const link = await operator(t).call('/stores/shop/admin_sessions', { method: 'POST' });
    const url = new URL(link.body.url);
    expect((await browse(`${url.pathname}${url.search}`)).status).toBe(303);
    const again = await browse(`${url.pathname}${url.search}`);
    expectPage(again, 401, /This sign-in link is unknown, expired or already used/);
    expect(again.text).toContain('<span class="brand">Corner Shop</span>');
    expect(again.text).toContain('./dev.sh link shop');
  });

  it('links /admin on the bare host to the store hosts, in the port it was asked on', async () => {
    const r = await call(`${t.origin}/admin`, { headers: { accept: HTML } });
    expectPage(r, 404, /Open your store’s admin/);
    expect(r.text).toContain(`<code>http://{handle}.localhost:${t.port}/admin</code>`);
    // The message it always had stays on the page.
    expect(r.text).toContain('Merchant pages are on the store&#39;s own host, {handle}.localhost');
  });
});

describe('./dev.sh link [handle]: a fresh sign-in link while the API runs', () => {
  const env = (extra: Record<string, string>) => ({ ...process.env, HOST: '127.0.0.1', PORT: String(t.port), ...extra });

  it('prints a one-time link to the store that signs in once', async () => {
    const { stdout, stderr } = await run(join(ROOT, 'dev.sh'), ['link', 'shop'], { env: env({ PLATFORM_OPERATOR_TOKEN: OPERATOR_TOKEN }) });
    const url = new URL(stdout.trim());
    expect(url.host).toBe(storeHost(t, 'shop'));
    expect(url.pathname).toBe('/admin/sign-in');
    expect(stderr).toContain('it works once, within 10 minutes');
    const signedIn = await browse(`${url.pathname}${url.search}`);
    expect(signedIn.status).toBe(303);
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    expectPage(await browse('/admin', { cookie }), 200, /Needs your attention/);
    expect((await browse(`${url.pathname}${url.search}`)).status).toBe(401);
  });

  it('says what to do when the API is not there, refuses the token, or knows no such store', async () => {
    const script = join(ROOT, 'scripts', 'sign-in-link.mjs');
    const failure = async (args: string[], extra: Record<string, string>) => {
      const error = await run(process.execPath, [script, ...args], { env: env(extra) }).then(
        () => undefined,
        (e: { code: number; stderr: string }) => e,
      );
      expect(error?.code).toBe(1);
      return error!.stderr;
    };
    expect(await failure(['shop'], { PLATFORM_OPERATOR_TOKEN: OPERATOR_TOKEN, PORT: '1' })).toMatch(
      /does not answer at http:\/\/127\.0\.0\.1:1\.\nStart it with \.\/dev\.sh start/,
    );
    expect(await failure(['shop'], { PLATFORM_OPERATOR_TOKEN: 'not-the-token' })).toMatch(/refused the operator token/);
    expect(await failure(['nowhere'], { PLATFORM_OPERATOR_TOKEN: OPERATOR_TOKEN })).toMatch(/No sign-in link for the store 'nowhere': 404/);
  });
});
