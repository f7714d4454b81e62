/* eslint-disable @typescript-eslint/no-explicit-any -- answers in tests are arbitrary JSON, read field by field */
import { signTokenRequest } from '@platform/domain';
import { call, operator, type Served } from './harness';

export const CALLBACK = 'https://app.example.com/oauth/callback';

export interface OAuthApp {
  id: string;
  app_key: string;
  app_secret: string;
  kind: string;
  scopes: string[];
}

/** A custom or public app registered by the operator. */
export async function createOAuthApp(
  t: Served,
  kind: 'custom' | 'public',
  scopes: string[] = ['write_products', 'read_store_information'],
  extra: Record<string, unknown> = {},
): Promise<OAuthApp> {
  const r = await operator(t).call('/apps', {
    body: { app: { name: `An ${kind} app`, kind, scopes, redirect_urls: [CALLBACK], ...extra } },
  });
  if (r.status !== 201) throw new Error(`createApp ${r.status} ${r.text}`);
  return r.body.app;
}

/** `{handle}.localhost:{port}`: the store's host (decisions §1.2; PLATFORM_BASE_DOMAIN is localhost in tests). */
export const storeHost = (t: Served, handle: string) => `${handle}.localhost:${t.port}`;

/**
 * Calls made at one instant of the manual clock still get distinct timestamps (a few ms apart,
 * well inside the 10-minute window), as a client signing each call anew does: a signed call is
 * accepted once (decisions §5.2), so two calls with one timestamp and one body would be one call.
 */
let sequence = 0;

/** A token call signed as the SDK signs it (decisions §5.2), with what a test wants changed. */
export function tokenCall(
  t: Served,
  action: 'create' | 'refresh' | 'cancel',
  app: Pick<OAuthApp, 'app_key' | 'app_secret'>,
  options: {
    body?: unknown;
    host?: string;
    timestamp?: number | string;
    sign?: string;
    omit?: 'appkey' | 'timestamp' | 'sign';
    nowMs?: number;
  } = {},
) {
  const rawBody = options.body === undefined ? '' : JSON.stringify(options.body);
  const timestamp = String(options.timestamp ?? (options.nowMs ?? Date.now()) + (sequence++ % 1000));
  const headers: Record<string, string> = {
    appkey: app.app_key,
    timestamp,
    sign: options.sign ?? signTokenRequest({ secret: app.app_secret, rawBody, timestamp }),
  };
  if (rawBody) headers['content-type'] = 'application/json; charset=utf-8';
  if (options.host) headers.host = options.host;
  if (options.omit) delete headers[options.omit];
  return call(`${t.origin}/admin/oauth/token/${action}`, { method: 'POST', rawBody, headers });
}

/** The service clock in ms (the manual clock of the tests). */
export async function serviceNow(t: Served): Promise<number> {
  const r = await operator(t).call('/clock');
  return Date.parse(r.body.now);
}

/** The operator's install (decisions §10) and the token create: an installed app with its token. */
export async function installWithToken(t: Served, handle: string, app: OAuthApp, scopes: string[] = app.scopes) {
  const install = await operator(t).call(`/stores/${handle}/apps/${app.id}/install`, { body: { scopes } });
  if (install.status !== 201) throw new Error(`install ${install.status} ${install.text}`);
  const created = await tokenCall(t, 'create', app, { body: { code: install.body.code }, nowMs: await serviceNow(t) });
  if (created.status !== 200) throw new Error(`create ${created.status} ${created.text}`);
  return created.body.data as { accessToken: string; expireTime: string; scope: string };
}

/** An Admin API read with a token (the store information read needs read_store_information). */
export function readShop(t: Served, token: string, host?: string) {
  return call(`${t.origin}/admin/openapi/v20260901/merchants/shop.json`, { token, headers: host ? { host } : {} });
}

/** Signs in as the merchant of `handle` through a one-time link; the session cookie `name=value`. */
export async function signIn(t: Served, handle: string): Promise<string> {
  const link = await operator(t).call(`/stores/${handle}/admin_sessions`, { method: 'POST' });
  if (link.status !== 201) throw new Error(`admin_sessions ${link.status} ${link.text}`);
  const url = new URL(link.body.url);
  const r = await call(`${t.origin}${url.pathname}${url.search}`, { headers: { host: url.host } });
  const cookie = r.headers.get('set-cookie');
  if (r.status !== 303 || !cookie) throw new Error(`sign-in ${r.status} ${r.text}`);
  return cookie.split(';')[0]!;
}

/** The consent page's hidden one-time token. */
export function consentTokenOf(page: string): string {
  const match = /name="consent_token" value="([^"]+)"/.exec(page);
  if (!match) throw new Error(`no consent form in: ${page.slice(0, 300)}`);
  return match[1]!;
}

export function authorizeQuery(app: Pick<OAuthApp, 'app_key'>, extra: Record<string, string> = {}) {
  return new URLSearchParams({
    appKey: app.app_key,
    responseType: 'code',
    scope: 'write_products,read_store_information',
    redirectUri: CALLBACK,
    customField: 'state 42',
    ...extra,
  }).toString();
}

/** A posted consent form, as the browser sends it. */
export function postConsent(
  t: Served,
  handle: string,
  cookie: string | undefined,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return call(`${t.origin}/admin/oauth/authorize`, {
    method: 'POST',
    rawBody: new URLSearchParams(fields).toString(),
    headers: { host: storeHost(t, handle), 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}), ...headers },
  });
}

export type Json = any;
