import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_TOKEN, operator, startPlatform, storeWithApp, VERSION, type TestPlatform } from './harness';

// decisions §12.6, §1.4 (issue 43 finding 4): X-Forwarded-Proto/-Host are believed only on a
// connection from an address of PLATFORM_TRUST_PROXY. Loopback has all of 127.0.0.0/8 on Linux:
// 127.0.0.2 plays the balancer, 127.0.0.1 any other client.
const BALANCER = '127.0.0.2';
const spoofed = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' };

let t: TestPlatform;
let plain: TestPlatform;
let fromBalancer: Agent;
const tokens = new Map<TestPlatform, string>();

beforeAll(async () => {
  [t, plain] = await Promise.all([startPlatform({ PLATFORM_TRUST_PROXY: `${BALANCER}, 10.0.0.0/8` }), startPlatform()]);
  fromBalancer = new Agent({ localAddress: BALANCER });
  for (const platform of [t, plain]) {
    tokens.set(platform, (await storeWithApp(platform, 'shop', ['read_products'])).token);
    await operator(platform).createProducts('shop', [{ title: 'A' }, { title: 'B' }]);
  }
});
afterAll(async () => {
  await fromBalancer?.close();
  await Promise.all([t?.close(), plain?.close()]);
});

interface Sent {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

async function send(
  on: TestPlatform,
  path: string,
  init: { balancer?: boolean; method?: 'GET' | 'POST'; headers?: Record<string, string> } = {},
): Promise<Sent> {
  const response = await request(`${on.origin}${path}`, {
    method: init.method ?? 'GET',
    headers: init.headers,
    ...(init.balancer ? { dispatcher: fromBalancer } : {}),
  });
  return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
}

const nextLink = async (on: TestPlatform, balancer: boolean) => {
  const page = await send(on, `/admin/openapi/${VERSION}/products/products.json?limit=1`, {
    balancer,
    headers: { ...spoofed, authorization: `Bearer ${tokens.get(on)}` },
  });
  expect(page.status).toBe(200);
  return String(page.headers.link);
};

const signInLink = async (on: TestPlatform, balancer: boolean) => {
  const link = await send(on, '/platform/v1/stores/shop/admin_sessions', {
    balancer,
    method: 'POST',
    headers: { ...spoofed, authorization: `Bearer ${OPERATOR_TOKEN}` },
  });
  expect(link.status).toBe(201);
  return String(JSON.parse(link.body).url);
};

/** The session cookie a sign-in link sets, opened with the given X-Forwarded-Proto. */
const sessionCookie = async (on: TestPlatform, balancer: boolean) => {
  const url = new URL(await signInLink(on, false));
  const opened = await send(on, `${url.pathname}${url.search}`, {
    balancer,
    headers: { host: `shop.localhost:${on.port}`, 'x-forwarded-proto': 'https' },
  });
  expect(opened.status).toBe(303);
  return String(opened.headers['set-cookie']);
};

describe('forwarded headers from a client that is not a listed proxy', () => {
  it('are ignored: links, sign-in URLs and the session cookie follow the request itself', async () => {
    expect(await nextLink(t, false)).toMatch(new RegExp(`^<http://127\\.0\\.0\\.1:${t.port}/admin/openapi/`));
    expect(await signInLink(t, false)).toMatch(new RegExp(`^http://shop\\.localhost:${t.port}/admin/sign-in\\?token=`));
    expect(await sessionCookie(t, false)).not.toMatch(/;\s*Secure/i);
  });

  it('are ignored from every address when PLATFORM_TRUST_PROXY is unset, loopback included', async () => {
    expect(await nextLink(plain, true)).toMatch(new RegExp(`^<http://127\\.0\\.0\\.1:${plain.port}/admin/openapi/`));
    expect(await signInLink(plain, true)).toMatch(/^http:\/\/shop\.localhost:\d+\/admin\/sign-in/);
    expect(await sessionCookie(plain, true)).not.toMatch(/;\s*Secure/i);
  });
});

describe('forwarded headers from a listed proxy', () => {
  it('are believed: the scheme and host it names make the links, and https marks the cookie Secure', async () => {
    expect(await nextLink(t, true)).toMatch(/^<https:\/\/evil\.example\/admin\/openapi\//);
    expect(await signInLink(t, true)).toMatch(/^https:\/\/shop\.localhost(:\d+)?\/admin\/sign-in\?token=/);
    expect(await sessionCookie(t, true)).toMatch(/;\s*Secure/i);
  });
});

/** The sign-in link opened, then the home page with its cookie: both answers, over the X-Forwarded-Proto given. */
const merchantPages = async (on: TestPlatform, balancer: boolean) => {
  const url = new URL(await signInLink(on, false));
  const host = `shop.localhost:${on.port}`;
  const opened = await send(on, `${url.pathname}${url.search}`, { balancer, headers: { host, 'x-forwarded-proto': 'https' } });
  expect(opened.status).toBe(303);
  const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
  const home = await send(on, '/admin', { balancer, headers: { host, cookie, 'x-forwarded-proto': 'https' } });
  expect(home.status).toBe(200);
  expect(home.body).toContain('<html');
  return { opened, home };
};

describe('Strict-Transport-Security on merchant pages (decisions §12.6)', () => {
  it('is sent when a listed proxy says the request came over HTTPS: on the sign-in redirect and on the pages', async () => {
    const { opened, home } = await merchantPages(t, true);
    expect(opened.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(home.headers['strict-transport-security']).toBe('max-age=31536000');
  });

  it('is not sent over plain HTTP, nor when a client that is no listed proxy claims HTTPS', async () => {
    const { opened, home } = await merchantPages(t, false);
    expect(opened.headers['strict-transport-security']).toBeUndefined();
    expect(home.headers['strict-transport-security']).toBeUndefined();
  });
});

describe('PLATFORM_TRUST_PROXY=true (decisions §1.4: every hop believed)', () => {
  it('believes the headers from any client, as the switch says', async () => {
    const everyHop = await startPlatform({ PLATFORM_TRUST_PROXY: 'true' });
    try {
      tokens.set(everyHop, (await storeWithApp(everyHop, 'shop', ['read_products'])).token);
      await operator(everyHop).createProducts('shop', [{ title: 'A' }, { title: 'B' }]);
      expect(await nextLink(everyHop, false)).toMatch(/^<https:\/\/evil\.example\/admin\/openapi\//);
      expect(await sessionCookie(everyHop, false)).toMatch(/;\s*Secure/i);
    } finally {
      await everyHop.close();
    }
  });
});
