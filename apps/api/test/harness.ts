/* eslint-disable @typescript-eslint/no-explicit-any -- answers in tests are arbitrary JSON, read field by field */
import type { Db } from '@platform/db';
import { emptyTestDatabase, migratedTestDatabase, type TestDatabase } from '@platform/db/testing';
import { TEST_CLOCK_START } from '@platform/test-process';
import { Agent, request } from 'undici';
import { createPlatform, type Platform } from '../src/bootstrap';
import { loadConfig } from '../src/config';

export const OPERATOR_TOKEN = 'test-operator-token-0123456789';
export const VERSION = 'v20260901';

/**
 * A real database per test file with the schema applied: a SQLite file in a temp folder, or a new
 * PostgreSQL database when TEST_DATABASE_URL is set; a copy of a template this worker migrated once
 * (`@platform/db/testing`).
 */
export function freshDatabase(): Promise<TestDatabase> {
  return migratedTestDatabase({ prefix: 'e2e', pgUrl: process.env.TEST_DATABASE_URL });
}

/** An empty database (no schema), for the tests of migrating at start. */
export function emptyDatabase(): Promise<TestDatabase> {
  return emptyTestDatabase({ prefix: 'e2e', pgUrl: process.env.TEST_DATABASE_URL });
}

export interface TestPlatform {
  platform: Platform;
  db: Db;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  close(): Promise<void>;
}

/** The configuration of a test platform on `url`: manual clock, no seed, no sender, quiet logs. */
export function testConfig(url: string, env: Record<string, string> = {}) {
  return loadConfig({
    DATABASE_URL: url,
    PLATFORM_OPERATOR_TOKEN: OPERATOR_TOKEN,
    PLATFORM_SECRET: 'test-secret-for-cursors-0123456789',
    PLATFORM_CLOCK: 'manual',
    PLATFORM_CLOCK_START: TEST_CLOCK_START,
    PLATFORM_SEED_DEMO: 'false',
    PLATFORM_SENDER: 'off',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    HOST: '127.0.0.1',
    PORT: '0',
    ...env,
  });
}

/** Builds and serves a platform on a loopback port; `close` stops it (the database stays). */
export async function listen(config: ReturnType<typeof loadConfig>): Promise<TestPlatform> {
  const platform = await createPlatform(config);
  await platform.app.listen({ host: '127.0.0.1', port: 0 });
  const address = platform.app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { platform, db: platform.db, origin: `http://127.0.0.1:${port}`, port, close: () => platform.close() };
}

/** A platform on a fresh database of its own, dropped on close. */
export async function startPlatform(env: Record<string, string> = {}): Promise<TestPlatform> {
  const database = await freshDatabase();
  const t = await listen(testConfig(database.url, env));
  return {
    ...t,
    async close() {
      await t.close();
      await database.drop();
    },
  };
}

/** decisions §4: a 500 is a bug. Every call a test makes is recorded here; `expectNoServerErrors` checks it. */
export const serverErrors: string[] = [];

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * The tests' connections: idle ones are dropped after 1 s, well before the server closes them
 * (PLATFORM_KEEP_ALIVE_TIMEOUT_MS, 5 s). undici's default keeps one up to a second before the
 * server's hint, and on a loaded machine a test that spent seconds building a large body then wrote
 * it into a connection the server was closing at that moment (EPIPE, ECONNRESET: issue 42).
 */
const testAgent = new Agent({ keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000 });

export async function call<T = any>(
  url: string,
  init: { method?: string; token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.rawBody !== undefined) body = init.rawBody;
  else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json; charset=utf-8';
  }
  // undici's request (not fetch) so tests can send a Host header of a store's domain.
  const response = await request(url, { method: (init.method ?? (body ? 'POST' : 'GET')) as 'GET', headers, body, dispatcher: testAgent });
  const text = await response.body.text();
  const status = response.statusCode;
  if (status >= 500) serverErrors.push(`${init.method ?? 'GET'} ${url} -> ${status} ${text}`);
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (Array.isArray(value)) for (const v of value) responseHeaders.append(name, v);
    else if (value !== undefined) responseHeaders.set(name, value);
  }
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status, headers: responseHeaders, body: parsed as T, text };
}

/** What the helpers below need of a server: where it listens (an in-process platform or a process of its own). */
export type Served = Pick<TestPlatform, 'origin' | 'port'>;

/** The operator API of a test platform (decisions §10). */
export function operator(t: Served) {
  const at = (path: string) => `${t.origin}/platform/v1${path}`;
  return {
    call: <T = any>(path: string, init: Parameters<typeof call>[1] = {}) => call<T>(at(path), { token: OPERATOR_TOKEN, ...init }),
    async createStore(handle: string, extra: Record<string, unknown> = {}) {
      const r = await call(at('/stores'), { token: OPERATOR_TOKEN, body: { store: { handle, name: `Store ${handle}`, ...extra } } });
      if (r.status !== 201) throw new Error(`createStore ${r.status} ${r.text}`);
      return r.body.store;
    },
    async createPrivateApp(handle: string, scopes: string[]) {
      const r = await call(at('/apps'), {
        token: OPERATOR_TOKEN,
        body: { app: { name: `App for ${handle}`, kind: 'private', scopes, store_handle: handle } },
      });
      if (r.status !== 201) throw new Error(`createApp ${r.status} ${r.text}`);
      return r.body as { app: { id: string; app_secret: string }; access_token: string; expires_at: string };
    },
    async createProducts(handle: string, products: Record<string, unknown>[]) {
      const ids: string[] = [];
      for (let i = 0; i < products.length; i += 1000) {
        const r = await call(at(`/stores/${handle}/products`), { token: OPERATOR_TOKEN, body: { products: products.slice(i, i + 1000) } });
        if (r.status !== 201) throw new Error(`createProducts ${r.status} ${r.text}`);
        ids.push(...(r.body.products as { id: string }[]).map((p) => p.id));
      }
      return ids;
    },
    /** The service's clock (decisions §10): what expectations about expiries and dates are computed from. */
    async now() {
      const r = await call(at('/clock'), { token: OPERATOR_TOKEN });
      if (r.status !== 200) throw new Error(`clock ${r.status} ${r.text}`);
      return new Date(r.body.now as string);
    },
    async advanceClock(seconds: number) {
      const r = await call(at('/clock'), { token: OPERATOR_TOKEN, body: { advance_seconds: seconds } });
      if (r.status !== 200) throw new Error(`clock ${r.status} ${r.text}`);
      return r.body.now as string;
    },
  };
}

/** A store with a private app holding `scopes`, ready for Admin API calls. */
export async function storeWithApp(
  t: Served,
  handle: string,
  scopes: string[] = ['read_products', 'write_products', 'read_store_information'],
) {
  const op = operator(t);
  const store = await op.createStore(handle);
  const app = await op.createPrivateApp(handle, scopes);
  const admin = (path: string, init: Parameters<typeof call>[1] = {}) =>
    call(`${t.origin}/admin/openapi/${VERSION}${path}`, { token: app.access_token, ...init });
  return { store, app, token: app.access_token, admin };
}
