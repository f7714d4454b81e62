import { verifyQuerySign } from '@platform/domain';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type FileBrowser } from './browser';
import { operator, startPlatform, type TestPlatform } from './harness';
import { readShop, serviceNow, tokenCall, type OAuthApp } from './oauth.helpers';

/**
 * The whole install in a real browser (decisions §5.2, §10): sign-in link, the oauth-web fragment
 * page, the consent page, Approve, the app's callback on a loopback server, token create, an Admin
 * API call; then Decline; a signed-out visitor; a forged and a replayed form. Store hosts are
 * `demo.localhost:<port>`: Chromium resolves *.localhost to loopback.
 */

let t: TestPlatform;
let browser: FileBrowser;
let app: OAuthApp;
let callback: Server;
let callbackOrigin: string;
const received: URL[] = [];
const waiters: ((url: URL) => void)[] = [];

function nextCallback(): Promise<URL> {
  return new Promise((resolve) => waiters.push(resolve));
}

beforeAll(async () => {
  browser = await launchChromium();
  t = await startPlatform({ PLATFORM_BASE_DOMAIN: 'localhost' });
  callback = createServer((request, response) => {
    const url = new URL(request.url ?? '/', callbackOrigin);
    if (url.pathname === '/forge') {
      // Another site's page that posts a made-up approval to the store: what CSRF looks like.
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<form id="f" method="post" action="http://demo.localhost:${t.port}/admin/oauth/authorize">` +
            '<input name="consent_token" value="forged"><input name="decision" value="approve"></form>' +
            '<script>document.getElementById("f").submit()</script>',
        );
      return;
    }
    if (url.pathname !== '/callback') {
      response.writeHead(404).end(); // the browser's favicon requests
      return;
    }
    received.push(url);
    waiters.shift()?.(url);
    response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>App callback reached</h1>');
  });
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  callbackOrigin = `http://127.0.0.1:${(callback.address() as AddressInfo).port}`;
  const op = operator(t);
  await op.createStore('demo', { name: 'Demo Store' });
  const created = await op.call('/apps', {
    body: {
      app: {
        name: 'Stock Sync',
        kind: 'public',
        scopes: ['write_products', 'read_inventory', 'read_store_information'],
        redirect_urls: [`${callbackOrigin}/callback`],
      },
    },
  });
  app = created.body.app;
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => callback?.close(resolve));
  await t?.close();
});

const storeOrigin = () => `http://demo.localhost:${t.port}`;
const fragmentUrl = (customField: string) =>
  `${storeOrigin()}/admin/oauth-web/#/oauth/authorize?` +
  new URLSearchParams({
    appKey: app.app_key,
    responseType: 'code',
    scope: 'write_products,read_store_information',
    redirectUri: `${callbackOrigin}/callback`,
    customField,
  }).toString();

async function signedInContext(): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const link = await operator(t).call('/stores/demo/admin_sessions', { method: 'POST' });
  const page = await context.newPage();
  await page.goto(link.body.url);
  expect(new URL(page.url()).pathname).toBe('/admin');
  await page.getByRole('heading', { name: 'Installed apps' }).waitFor();
  await page.close();
  return context;
}

async function consentPage(context: BrowserContext, customField: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(fragmentUrl(customField));
  // The fragment page's script moved the browser on to the consent page with the same parameters.
  await page.getByRole('heading', { name: 'Install Stock Sync?' }).waitFor({ timeout: 30_000 });
  const url = new URL(page.url());
  expect(url.pathname).toBe('/admin/oauth/authorize');
  expect(url.searchParams.get('customField')).toBe(customField);
  return page;
}

describe('installing a public app in Chromium (decisions §5.2)', () => {
  it('signs in, approves, receives a signed code at the callback, creates a token and calls the Admin API', async () => {
    const context = await signedInContext();
    const page = await consentPage(context, 'run 1');
    expect(await page.getByText('See and change your products').count()).toBe(1);
    const shot = join(tmpdir(), 'oauth-consent-phone.png');
    await page.screenshot({ path: shot, fullPage: true });
    const arrived = nextCallback();
    await page.getByRole('button', { name: 'Approve' }).click();
    const url = await arrived;
    const params = Object.fromEntries(url.searchParams);
    expect(url.pathname).toBe('/callback');
    expect(params).toMatchObject({ appkey: app.app_key, handle: 'demo', customField: 'run 1' });
    expect(verifyQuerySign(params, app.app_secret)).toBe(true);
    await page.getByRole('heading', { name: 'App callback reached' }).waitFor();

    const token = await tokenCall(t, 'create', app, { body: { code: params.code }, nowMs: await serviceNow(t) });
    expect(token.status).toBe(200);
    expect(token.body.data.scope).toBe('write_products,read_store_information');
    const shop = await readShop(t, token.body.data.accessToken, `demo.localhost:${t.port}`);
    expect(shop.status).toBe(200);
    expect(shop.body.data.handle).toBe('demo');
    await context.close();
  });

  it('declines: the callback gets error=access_denied and no code', async () => {
    const context = await signedInContext();
    const page = await consentPage(context, 'run 2');
    const arrived = nextCallback();
    await page.getByRole('button', { name: 'Decline' }).click();
    const url = await arrived;
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('customField')).toBe('run 2');
    expect(url.searchParams.has('code')).toBe(false);
    await context.close();
  });

  it('shows a signed-out visitor how to sign in, with nothing to approve', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(fragmentUrl('run 3'));
    await page.getByRole('heading', { name: 'Sign in to continue' }).waitFor({ timeout: 30_000 });
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await context.close();
  });

  it('refuses a form posted from another site, and the same form posted twice', async () => {
    const context = await signedInContext();
    const before = received.length;
    const forged = await context.newPage();
    await forged.goto(`${callbackOrigin}/forge`);
    await forged.waitForURL(`${storeOrigin()}/admin/oauth/authorize`);
    // SameSite=Lax keeps the session cookie off another site's post: the store sees no merchant.
    await forged.getByRole('heading', { name: 'Sign in to continue' }).waitFor();

    const page = await consentPage(context, 'run 4');
    const token = await page.locator('input[name="consent_token"]').getAttribute('value');
    const arrived = nextCallback();
    await page.getByRole('button', { name: 'Approve' }).click();
    expect((await arrived).searchParams.has('code')).toBe(true);
    // The approved form, sent again from the store's own page with the merchant's cookie.
    const replay = await context.newPage();
    await replay.goto(`${storeOrigin()}/admin`);
    // Evaluated in the page (a string: the test's own types know no DOM).
    await replay.evaluate(`(() => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = '/admin/oauth/authorize';
      for (const [name, value] of [['consent_token', ${JSON.stringify(token)}], ['decision', 'approve']]) {
        const input = document.createElement('input');
        input.name = name;
        input.value = value;
        form.appendChild(input);
      }
      document.body.appendChild(form);
      form.submit();
    })()`);
    await replay.getByRole('heading', { name: 'Not allowed' }).waitFor();
    expect(await replay.getByText('already used').count()).toBe(1);
    expect(received.length).toBe(before + 1);
    await context.close();
  });
});
