/*
 * OAuth helpers. The token endpoints arrive with the OAuth branch; until then a loopback stand-in
 * checks each call with the domain's verifyTokenRequest (the rule the server applies, decisions §5.2)
 * and answers in the shape of decisions §5.2. Live rows follow when the real routes exist.
 */
import { signQuery, verifyTokenRequest } from '@platform/domain/signing';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOAuth, OAuthError, PlatformApiError, memoryTokenStore } from '../src/index';
import { fakeClock } from './fake-clock';

const APP_KEY = 'app-key-1';
const SECRET = 'app-secret-0123456789abcdef';
let server: Server;
let origin = '';
let calls: { path: string; body: string; authorization: string | undefined; verdict: string }[] = [];
let issued = 0;
let clock = fakeClock();

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const check = verifyTokenRequest({
        secret: SECRET,
        rawBody: body,
        timestamp: req.headers.timestamp as string | undefined,
        sign: req.headers.sign as string | undefined,
        nowMs: clock.now(),
      });
      const verdict = check.ok && req.headers.appkey === APP_KEY ? 'ok' : check.ok ? 'wrong app' : check.reason;
      calls.push({ path: req.url ?? '', body, authorization: req.headers.authorization, verdict });
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.setHeader('traceId', `trace-${calls.length}`);
      if (verdict !== 'ok') {
        res.statusCode = 401;
        return res.end(JSON.stringify({ errors: `refused: ${verdict}` }));
      }
      if (req.url === '/admin/oauth/token/cancel')
        return res.end(JSON.stringify({ code: 200, i18nCode: 'SUCCESS', message: 'ok', data: {} }));
      issued += 1;
      const expireTime = new Date(clock.now() + 10 * 3600_000).toISOString();
      res.end(
        JSON.stringify({
          code: 200,
          i18nCode: 'SUCCESS',
          message: 'ok',
          data: { accessToken: `token-${issued}`, expireTime, scope: 'read_products' },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  calls = [];
  issued = 0;
  clock = fakeClock();
});

const oauth = () => createOAuth({ appKey: APP_KEY, appSecret: SECRET, baseUrl: origin, clock });

describe('authorizeUrl', () => {
  it("points at the store's consent page with the parameters of decisions §5.2", () => {
    const url = new URL(
      createOAuth({ appKey: APP_KEY, appSecret: SECRET, baseDomain: 'myplatform.com' }).authorizeUrl({
        handle: 'demo',
        scopes: ['read_products', 'write_metafields'],
        redirectUri: 'https://app.example/callback',
        customField: 'state-1',
      }),
    );
    expect(url.origin + url.pathname).toBe('https://demo.myplatform.com/admin/oauth/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      appKey: APP_KEY,
      responseType: 'code',
      scope: 'read_products,write_metafields',
      redirectUri: 'https://app.example/callback',
      customField: 'state-1',
    });
  });

  it('refuses a handle that is not one (no other host can be built from it)', () => {
    expect(() => oauth().authorizeUrl({ handle: 'evil.example/x', scopes: 'read_products', redirectUri: 'https://a' })).toThrow(/handle/);
  });
});

describe('verifyCallback', () => {
  const signed = (extra: Record<string, string> = {}) => {
    const p = { appkey: APP_KEY, code: 'code-1', handle: 'demo', timestamp: String(clock.now()), customField: 'state 1/ü', ...extra };
    return { ...p, sign: signQuery(p, SECRET) };
  };

  it('accepts a redirect signed with the app secret, from a query string too', () => {
    const p = signed();
    expect(oauth().verifyCallback(p, 'state 1/ü')).toEqual({
      code: 'code-1',
      handle: 'demo',
      timestamp: p.timestamp,
      customField: 'state 1/ü',
    });
    expect(oauth().verifyCallback(`?${new URLSearchParams(p).toString()}`).code).toBe('code-1');
  });

  it.each([
    ['a changed parameter', () => ({ ...signed(), handle: 'other' }), 'BAD_SIGN'],
    ['a missing sign', () => ({ ...signed(), sign: '' }), 'MISSING_PARAMETER'],
    ['another app', () => signed({ appkey: 'other-app' }), 'WRONG_APP'],
    ['a timestamp 11 minutes old', () => signed({ timestamp: String(clock.now() - 11 * 60_000) }), 'STALE_TIMESTAMP'],
    ['a declined consent', () => ({ error: 'access_denied', customField: 'x' }), 'ACCESS_DENIED'],
  ])('refuses %s', (_what, make, reason) => {
    const error = (() => {
      try {
        oauth().verifyCallback(make() as Record<string, string>);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).reason).toBe(reason);
  });

  it('refuses a customField other than the session sent (CSRF)', () => {
    expect(() => oauth().verifyCallback(signed(), 'another session')).toThrow(OAuthError);
  });
});

describe('token calls', () => {
  it('exchanges a code with a signed call and stores the token', async () => {
    const o = oauth();
    const token = await o.exchangeCode('demo', 'code-1');
    expect(token).toMatchObject({ handle: 'demo', accessToken: 'token-1', scope: 'read_products' });
    expect(calls).toEqual([{ path: '/admin/oauth/token/create', body: '{"code":"code-1"}', authorization: undefined, verdict: 'ok' }]);
    expect(await o.store.get('demo')).toEqual(token);
  });

  it('surfaces a refused call as PlatformApiError naming the request', async () => {
    const o = createOAuth({ appKey: APP_KEY, appSecret: 'wrong-secret-0123456789', baseUrl: origin, clock });
    const error = await o.exchangeCode('demo', 'code-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformApiError);
    expect(error).toMatchObject({ status: 401, method: 'POST', path: '/admin/oauth/token/create', errors: 'refused: BAD_SIGNATURE' });
  });

  it('refreshes once for many concurrent callers of a token about to expire (single flight)', async () => {
    const store = memoryTokenStore();
    await store.set({
      handle: 'demo',
      accessToken: 'old',
      expiresAt: new Date(clock.now() + 60_000).toISOString(),
      scope: 'read_products',
    });
    const o = createOAuth({ appKey: APP_KEY, appSecret: SECRET, baseUrl: origin, clock, store });
    const tokens = await Promise.all(Array.from({ length: 8 }, () => o.accessToken('demo')));
    expect(new Set(tokens)).toEqual(new Set(['token-1']));
    expect(calls).toEqual([{ path: '/admin/oauth/token/refresh', body: '', authorization: 'Bearer old', verdict: 'ok' }]);
    // Fresh now: no further refresh.
    expect(await o.accessToken('demo')).toBe('token-1');
    expect(calls).toHaveLength(1);
  });

  it('refreshes again after a failed refresh instead of keeping the failure', async () => {
    const store = memoryTokenStore();
    const o = createOAuth({ appKey: APP_KEY, appSecret: SECRET, baseUrl: origin, clock, store });
    await expect(o.refresh('demo')).rejects.toMatchObject({ reason: 'NO_TOKEN' });
    await store.set({ handle: 'demo', accessToken: 'old', expiresAt: new Date(clock.now()).toISOString(), scope: '' });
    expect((await o.refresh('demo')).accessToken).toBe('token-1');
  });

  it('cancels with a signed call and forgets the token', async () => {
    const o = oauth();
    await o.exchangeCode('demo', 'code-1');
    await o.cancel('demo');
    expect(calls.map((c) => [c.path, c.authorization, c.verdict])).toEqual([
      ['/admin/oauth/token/create', undefined, 'ok'],
      ['/admin/oauth/token/cancel', 'Bearer token-1', 'ok'],
    ]);
    expect(await o.store.get('demo')).toBeUndefined();
  });
});
