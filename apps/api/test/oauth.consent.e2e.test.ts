import { verifyQuerySign } from '@platform/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, operator, OPERATOR_TOKEN, startPlatform, type Answer, type TestPlatform } from './harness';
import {
  authorizeQuery,
  CALLBACK,
  consentTokenOf,
  createOAuthApp,
  postConsent,
  readShop,
  serviceNow,
  signIn,
  storeHost,
  tokenCall,
  type OAuthApp,
} from './oauth.helpers';

let t: TestPlatform;
const op = () => operator(t);

beforeAll(async () => {
  t = await startPlatform();
  await op().createStore('alpha', { name: 'Alpha <Shop> & Co' });
  await op().createStore('beta');
});
afterAll(async () => t?.close());

const page = (handle: string, path: string, cookie?: string) =>
  call(`${t.origin}${path}`, { headers: { host: storeHost(t, handle), ...(cookie ? { cookie } : {}) } });
const authorize = (handle: string, app: OAuthApp, cookie?: string, extra: Record<string, string> = {}) =>
  page(handle, `/admin/oauth/authorize?${authorizeQuery(app, extra)}`, cookie);

function expectPage(r: Answer, status: number, text: RegExp) {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(r.headers.get('x-frame-options')).toBe('DENY');
  expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(r.headers.get('traceId')).toBeTruthy();
  expect(r.headers.get('location')).toBeNull();
  expect(r.text).toMatch(text);
}

describe('merchant sessions (decisions §10)', () => {
  it('issues a one-time sign-in link on the store host that sets a host-only HttpOnly SameSite=Lax cookie', async () => {
    const link = await op().call('/stores/alpha/admin_sessions', { method: 'POST' });
    expect(link.status).toBe(201);
    const url = new URL(link.body.url);
    expect(url.host).toBe(storeHost(t, 'alpha'));
    expect(url.pathname).toBe('/admin/sign-in');
    const r = await call(`${t.origin}${url.pathname}${url.search}`, { headers: { host: url.host } });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/admin');
    const cookie = r.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^platform_admin_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=28800; HttpOnly; SameSite=Lax$/);
    const home = await page('alpha', '/admin', cookie.split(';')[0]);
    expectPage(home, 200, /Installed apps/);
    // The store name is text, never markup.
    expect(home.text).toContain('Alpha &lt;Shop&gt; &amp; Co');
    const again = await call(`${t.origin}${url.pathname}${url.search}`, { headers: { host: url.host } });
    expectPage(again, 401, /unknown, expired or already used/);
    expect(again.headers.get('set-cookie')).toBeNull();
  });

  it('opens one session when one link is opened twice at once', async () => {
    const url = new URL((await op().call('/stores/alpha/admin_sessions', { method: 'POST' })).body.url);
    const answers = await Promise.all([1, 2].map(() => call(`${t.origin}${url.pathname}${url.search}`, { headers: { host: url.host } })));
    expect(answers.map((a) => a.status).sort()).toEqual([303, 401]);
  });

  it('refuses a link after 10 minutes, and on another store host', async () => {
    const late = new URL((await op().call('/stores/alpha/admin_sessions', { method: 'POST' })).body.url);
    const foreign = new URL((await op().call('/stores/alpha/admin_sessions', { method: 'POST' })).body.url);
    await op().advanceClock(10 * 60 + 1);
    expectPage(await call(`${t.origin}${late.pathname}${late.search}`, { headers: { host: late.host } }), 401, /expired/);
    const fresh = new URL((await op().call('/stores/alpha/admin_sessions', { method: 'POST' })).body.url);
    expectPage(await call(`${t.origin}${fresh.pathname}${fresh.search}`, { headers: { host: storeHost(t, 'beta') } }), 401, /unknown/);
    expect(foreign.search).not.toBe(fresh.search);
    expect((await op().call('/stores/nope/admin_sessions', { method: 'POST' })).status).toBe(404);
    expect((await call(`${t.origin}/platform/v1/stores/alpha/admin_sessions`, { method: 'POST' })).status).toBe(401);
  });

  it('keeps a session to its own store host, ends it after 8 hours, and signs out', async () => {
    const cookie = await signIn(t, 'alpha');
    expectPage(await page('beta', '/admin', cookie), 401, /Sign in to continue/);
    expectPage(await page('alpha', '/admin', cookie), 200, /Installed apps/);
    expectPage(await call(`${t.origin}/admin`, { headers: { cookie } }), 404, /store&#39;s own host/);
    const home = await page('alpha', '/admin', cookie);
    const formToken = /name="form_token" value="([^"]+)"/.exec(home.text)![1]!;
    const forged = await call(`${t.origin}/admin/sign-out`, {
      method: 'POST',
      rawBody: 'form_token=forged',
      headers: { host: storeHost(t, 'alpha'), cookie, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectPage(forged, 403, /not sent from your signed-in page/);
    const out = await call(`${t.origin}/admin/sign-out`, {
      method: 'POST',
      rawBody: `form_token=${formToken}`,
      headers: { host: storeHost(t, 'alpha'), cookie, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/^platform_admin_session=; Path=\/; Max-Age=0/);
    expectPage(await page('alpha', '/admin', cookie), 401, /Sign in/);

    const later = await signIn(t, 'alpha');
    await op().advanceClock(8 * 3600 - 1);
    expectPage(await page('alpha', '/admin', later), 200, /Installed apps/);
    await op().advanceClock(1);
    expectPage(await page('alpha', '/admin', later), 401, /Sign in/);
  });

  it('serves the style sheet and the fragment page script itself', async () => {
    const css = await page('alpha', '/admin/assets/admin.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const js = await page('alpha', '/admin/assets/oauth-web.js');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await page('alpha', '/admin/assets/..%2Fpackage.json')).status).toBe(404);
    const web = await page('alpha', '/admin/oauth-web/');
    expectPage(web, 200, /<script src="\/admin\/assets\/oauth-web.js"><\/script>/);
    expect(web.headers.get('content-security-policy')).toContain("script-src 'self'");
  });
});

describe('GET /admin/oauth/authorize (decisions §5.2)', () => {
  it('shows a signed-out visitor how to sign in, and no form', async () => {
    const app = await createOAuthApp(t, 'public');
    const r = await authorize('alpha', app);
    expectPage(r, 401, /admin_sessions/);
    expect(r.text).not.toContain('consent_token');
  });

  it('shows the app name and the scopes in words, with Approve and Decline', async () => {
    const app = await createOAuthApp(t, 'public');
    const r = await authorize('alpha', app, await signIn(t, 'alpha'));
    expectPage(r, 200, /Install An public app\?/);
    expect(r.text).toContain('See and change your products');
    expect(r.text).toContain('See your store information');
    expect(r.text).toMatch(/value="approve"[^>]*>Approve</);
    expect(r.text).toMatch(/value="decline"[^>]*>Decline</);
    expect(r.headers.get('content-security-policy')).toContain("form-action 'self' https://app.example.com");
    expect(r.headers.get('content-security-policy')).toContain("script-src 'none'");
  });

  it('answers every bad request with an error page and a 4xx, never a redirect', async () => {
    const app = await createOAuthApp(t, 'public');
    const cookie = await signIn(t, 'alpha');
    const cases: [Record<string, string>, number, RegExp][] = [
      [{ appKey: 'unknown' }, 400, /no app has this key/],
      [{ redirectUri: `${CALLBACK}/` }, 400, /redirectUri: is not one of/],
      [{ redirectUri: 'https://evil.example.com/cb' }, 400, /redirectUri/],
      [{ scope: 'write_products,read_orders' }, 400, /unknown scope &#39;read_orders&#39;/],
      [{ scope: 'write_inventory' }, 400, /write_inventory is not among the scopes the app registered/],
      [{ scope: '' }, 400, /at least one scope/],
      [{ responseType: 'token' }, 400, /responseType/],
      [{ customField: 'x'.repeat(1025) }, 400, /customField/],
    ];
    for (const [extra, status, text] of cases) expectPage(await authorize('alpha', app, cookie, extra), status, text);
    expectPage(await page('alpha', `/admin/oauth/authorize?${authorizeQuery(app)}&appKey=again`, cookie), 400, /appKey: give it once/);
    expectPage(await page('nope', `/admin/oauth/authorize?${authorizeQuery(app)}`), 404, /no store &#39;nope&#39;/);
  });

  it('registers only redirect URLs the URL parser reads and a CSP source can hold; a bad one stored earlier is a 400 page (issue 14)', async () => {
    for (const bad of [
      'https://x:99999/cb',
      'https://[::1/cb',
      'http://a;script-src/cb',
      'https://a b/cb',
      'https://user:pw@app.example.com/cb',
    ]) {
      const r = await op().call('/apps', {
        body: { app: { name: 'Bad redirect', kind: 'public', scopes: ['read_products'], redirect_urls: [bad] } },
      });
      expect(r.status, bad).toBe(422);
      expect(r.body.errors, bad).toMatch(/^redirect_urls\[0\]: /);
    }
    // What a laxer version registered: the consent page refuses it instead of failing or injecting.
    const app = await createOAuthApp(t, 'public');
    const injected = 'http://a;script-src/cb';
    await t.db.prisma.app.update({ where: { id: BigInt(app.id) }, data: { redirectUrls: JSON.stringify([injected]) } });
    const r = await authorize('alpha', app, await signIn(t, 'alpha'), { redirectUri: injected });
    expectPage(r, 400, /redirectUri: must have a host of letters/);
    expect(r.headers.get('content-security-policy')).not.toContain('script-src/cb');
    expect(r.headers.get('content-security-policy')).toContain("form-action 'self';");
  });

  it('refuses a custom app on a second store, and restricted stores (402, 423)', async () => {
    const custom = await createOAuthApp(t, 'custom');
    await op().call(`/stores/alpha/apps/${custom.id}/install`, { body: { scopes: custom.scopes } });
    expectPage(await authorize('beta', custom, await signIn(t, 'beta')), 403, /custom app of another store/);
    await op().createStore('frozen');
    const cookie = await signIn(t, 'frozen');
    const app = await createOAuthApp(t, 'public');
    await op().call('/stores/frozen', { method: 'PATCH', body: { store: { status: 'frozen' } } });
    expectPage(await authorize('frozen', app, cookie), 402, /frozen/);
    await op().call('/stores/frozen', { method: 'PATCH', body: { store: { status: 'closed' } } });
    expectPage(await authorize('frozen', app, cookie), 423, /closed/);
  });
});

describe('POST /admin/oauth/authorize: Approve, Decline, CSRF (decisions §5.2)', () => {
  it('approves: redirects to the registered URI with appkey, code, handle, timestamp, customField and a sign that verifies', async () => {
    const app = await createOAuthApp(t, 'public');
    const cookie = await signIn(t, 'alpha');
    const form = await authorize('alpha', app, cookie);
    const r = await postConsent(t, 'alpha', cookie, { consent_token: consentTokenOf(form.text), decision: 'approve' });
    expect(r.status).toBe(303);
    const location = new URL(r.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    const params = Object.fromEntries(location.searchParams);
    expect(Object.keys(params).sort()).toEqual(['appkey', 'code', 'customField', 'handle', 'sign', 'timestamp']);
    expect(params).toMatchObject({ appkey: app.app_key, handle: 'alpha', customField: 'state 42', timestamp: String(await serviceNow(t)) });
    expect(verifyQuerySign(params, app.app_secret)).toBe(true);
    expect(verifyQuerySign({ ...params, handle: 'beta' }, app.app_secret)).toBe(false);
    const token = await tokenCall(t, 'create', app, { body: { code: params.code }, nowMs: await serviceNow(t) });
    expect(token.body.data.scope).toBe('write_products,read_store_information');
    expect((await readShop(t, token.body.data.accessToken)).body.data.handle).toBe('alpha');
  });

  it('declines: redirects with error=access_denied and the customField, and no code', async () => {
    const app = await createOAuthApp(t, 'public');
    const cookie = await signIn(t, 'alpha');
    const form = await authorize('alpha', app, cookie);
    const r = await postConsent(t, 'alpha', cookie, { consent_token: consentTokenOf(form.text), decision: 'decline' });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe(`${CALLBACK}?customField=state%2042&error=access_denied`);
  });

  it('refuses a post without a valid decision (400) and leaves the form usable', async () => {
    const app = await createOAuthApp(t, 'public');
    const cookie = await signIn(t, 'alpha');
    const token = consentTokenOf((await authorize('alpha', app, cookie)).text);
    const bad: Record<string, string>[] = [{ consent_token: token }, { consent_token: token, decision: 'maybe' }];
    for (const fields of bad) {
      expectPage(await postConsent(t, 'alpha', cookie, fields), 400, /approve/);
    }
    expect((await postConsent(t, 'alpha', cookie, { consent_token: token, decision: 'approve' })).status).toBe(303);
  });

  it("refuses a signed-out post, a forged token, a replayed form, another session's form, another origin and a stale form", async () => {
    const app = await createOAuthApp(t, 'public');
    const cookie = await signIn(t, 'alpha');
    const token = consentTokenOf((await authorize('alpha', app, cookie)).text);
    expectPage(await postConsent(t, 'alpha', undefined, { consent_token: token, decision: 'approve' }), 401, /Sign in/);
    expectPage(await postConsent(t, 'alpha', cookie, { consent_token: 'forged', decision: 'approve' }), 403, /not valid/);
    expectPage(await postConsent(t, 'alpha', cookie, { decision: 'approve' }), 403, /not valid/);
    const other = await signIn(t, 'alpha');
    expectPage(await postConsent(t, 'alpha', other, { consent_token: token, decision: 'approve' }), 403, /not valid/);
    expectPage(
      await postConsent(t, 'alpha', cookie, { consent_token: token, decision: 'approve' }, { origin: 'https://evil.example.com' }),
      403,
      /another site/,
    );
    expect(
      (await postConsent(t, 'alpha', cookie, { consent_token: token, decision: 'approve' }, { origin: `http://${storeHost(t, 'alpha')}` }))
        .status,
    ).toBe(303);
    expectPage(await postConsent(t, 'alpha', cookie, { consent_token: token, decision: 'approve' }), 403, /already used/);
    const raced = consentTokenOf((await authorize('alpha', app, cookie)).text);
    const both = await Promise.all([1, 2].map(() => postConsent(t, 'alpha', cookie, { consent_token: raced, decision: 'approve' })));
    expect(both.map((a) => a.status).sort()).toEqual([303, 403]);
    const stale = consentTokenOf((await authorize('alpha', app, cookie)).text);
    await op().advanceClock(10 * 60 + 1);
    expectPage(await postConsent(t, 'alpha', cookie, { consent_token: stale, decision: 'approve' }), 403, /older than 10 minutes/);
    // A form body is read on the merchant form routes only; the JSON rule holds elsewhere.
    const json = await call(`${t.origin}/platform/v1/clock`, {
      token: OPERATOR_TOKEN,
      rawBody: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(json.status).toBe(400);
  });
});
