/* eslint-disable @typescript-eslint/no-explicit-any -- answers in tests are arbitrary JSON, read field by field */
import { expect } from 'vitest';
import { call, operator, VERSION, type Answer, type TestPlatform } from './harness';
import { signIn, storeHost } from './oauth.helpers';

// Helpers of the merchant-admin*.e2e.test.ts files (not a test file itself): the merchant admin of
// issue 18 over real HTTP on the store's host, as a signed-in merchant.

/** A signed-in merchant of `handle`: pages by GET, forms posted with the session's form token. */
export async function merchantOf(t: TestPlatform, handle: string) {
  const cookie = await signIn(t, handle);
  const host = storeHost(t, handle);
  const get = (path: string, withCookie = true) => call(`${t.origin}${path}`, { headers: { host, ...(withCookie ? { cookie } : {}) } });
  let token: string | undefined;
  const formToken = async () => (token ??= formTokenOf(await get('/admin')));
  const post = async (
    path: string,
    fields: Record<string, string>,
    options: { token?: string | null; headers?: Record<string, string> } = {},
  ) => {
    const formTokenValue = options.token === undefined ? await formToken() : options.token;
    const body = new URLSearchParams({ ...(formTokenValue === null ? {} : { form_token: formTokenValue }), ...fields });
    return call(`${t.origin}${path}`, {
      method: 'POST',
      rawBody: body.toString(),
      headers: { host, cookie, 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
    });
  };
  return { cookie, host, get, post, formToken };
}
export type MerchantClient = Awaited<ReturnType<typeof merchantOf>>;

export function formTokenOf(page: Answer): string {
  const match = /name="form_token" value="([^"]+)"/.exec(page.text);
  if (!match) throw new Error(`no form token in: ${page.text.slice(0, 300)}`);
  return match[1]!;
}

/** An HTML page of the merchant admin, with its security headers. */
export function expectPage(r: Answer, status: number, text?: RegExp) {
  expect(r.status, r.text.slice(0, 2000)).toBe(status);
  expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(r.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
  expect(r.headers.get('cache-control')).toBe('no-store');
  if (text) expect(r.text).toMatch(text);
}

/** The text of the error list beside a form field (`<ul class="field-errors" id="{name}-error">`). */
export function errorsBeside(page: Answer, name: string): string {
  const match = new RegExp(`id="${name.replace(/\./g, '\\.')}-error">([\\s\\S]*?)</ul>`).exec(page.text);
  return match
    ? match[1]!
        .replace(/<[^>]+>/g, ' ')
        .replace(/&#39;/g, "'")
        .replace(/\s+/g, ' ')
        .trim()
    : '';
}

/** One app's Admin API calls. */
export function adminApi(t: TestPlatform, token: string) {
  return (path: string, init: Parameters<typeof call>[1] = {}) => call(`${t.origin}/admin/openapi/${VERSION}${path}`, { token, ...init });
}

/** A private app of `handle` made by the operator: its id and token. */
export async function operatorPrivateApp(t: TestPlatform, handle: string, name: string, scopes: string[]) {
  const r = await operator(t).call('/apps', { body: { app: { name, kind: 'private', scopes, store_handle: handle } } });
  if (r.status !== 201) throw new Error(`createApp ${r.status} ${r.text}`);
  return { id: r.body.app.id as string, token: r.body.access_token as string };
}

export type Json = any;
