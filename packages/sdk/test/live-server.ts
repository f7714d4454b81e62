/* eslint-disable @typescript-eslint/no-explicit-any -- operator answers are arbitrary JSON, read field by field */
/*
 * The real API, booted from apps/api/dist/main.js on a loopback port with a SQLite file of its own:
 * one shared by the files that need no settings of their own (test/global-setup.ts), or one per file;
 * what the SDK's live tests, the pack test and the README examples run against. No mocks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';
import { SCOPES } from '@platform/domain';
import { startApi } from '@platform/test-process';
import { inject } from 'vitest';
import { typeErrors, typeErrors7 } from './type-check';

export { TYPE_CHECK_TIMEOUT_MS } from './type-check';

export { REPO_ROOT } from '@platform/test-process';
export const SDK_DIR = resolve(__dirname, '..');
export const OPERATOR_TOKEN = 'sdk-live-operator-token-0123456789';
export const VERSION = 'v20260901';
export const ALL_SCOPES = [...SCOPES];

/** Where a live server listens and its database: what the global setup hands the files. */
export interface SharedServer {
  origin: string;
  port: number;
  databaseUrl: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where test/global-setup.ts starts the shared API on request. */
    sharedLiveServerLauncher: string;
  }
}

export interface LiveServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The server's database (a SQLite file), for a sender process beside it. */
  databaseUrl: string;
  port: number;
  operator<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  createStore(handle: string): Promise<{ handle: string }>;
  /** A private app on `handle` with `scopes`; its token and secret. */
  createPrivateApp(handle: string, scopes?: string[]): Promise<{ appId: string; appKey: string; appSecret: string; token: string }>;
  createProducts(handle: string, count: number, make?: (i: number) => Record<string, unknown>): Promise<string[]>;
  close(): Promise<void>;
}

/** The environment of the API the live files share (test/global-setup.ts): no rate limit in the way. */
export const SHARED_ENV = { PLATFORM_RATE_LIMIT_CAPACITY: '100000' };

/** An API process of this file's own, for a file that needs other settings than the shared one's. */
export async function startLiveServer(env: Record<string, string> = {}): Promise<LiveServer> {
  const dir = mkdtempSync(join(tmpdir(), 'sdk-live-'));
  const databaseUrl = `file:${join(dir, 'api.db')}`;
  const api = await startApi({
    DATABASE_URL: databaseUrl,
    PLATFORM_OPERATOR_TOKEN: OPERATOR_TOKEN,
    PLATFORM_SECRET: 'sdk-live-secret-0123456789abcdef',
    PLATFORM_METAFIELD_RECHECK_INTERVAL_MS: '0',
    PLATFORM_TOKEN_REMINDER_INTERVAL_MS: '0',
    ...env,
  });
  return served({ origin: api.origin, port: api.port, databaseUrl }, async () => {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  });
}

/**
 * The API process the live files share (SHARED_ENV), started by test/global-setup.ts when the first
 * of them asks and stopped after the last file: a start costs about 3 s of CPU on 2 cores. Each
 * file works in stores and apps of its own; `close` leaves the process to the global teardown.
 */
export async function sharedLiveServer(): Promise<LiveServer> {
  const response = await fetch(inject('sharedLiveServerLauncher'), { method: 'POST' });
  const text = await response.text();
  if (!response.ok) throw new Error(`the shared API did not start: ${text}`);
  return served(JSON.parse(text) as SharedServer, async () => undefined);
}

function served({ origin, port, databaseUrl }: SharedServer, close: () => Promise<void>): LiveServer {
  const operator = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${origin}/platform/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  const expectOk = <T>(what: string, r: { status: number; body: T }) => {
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };

  return {
    origin,
    databaseUrl,
    port,
    operator,
    async createStore(handle) {
      return expectOk('createStore', await operator('POST', '/stores', { store: { handle, name: `Store ${handle}` } })).store;
    },
    async createPrivateApp(handle, scopes = ALL_SCOPES) {
      const body = expectOk(
        'createApp',
        await operator('POST', '/apps', { app: { name: `App ${handle} ${Math.random()}`, kind: 'private', scopes, store_handle: handle } }),
      );
      return { appId: body.app.id, appKey: body.app.app_key, appSecret: body.app.app_secret, token: body.access_token };
    },
    async createProducts(handle, count, make = (i) => ({ title: `Product ${i}` })) {
      const ids: string[] = [];
      for (let i = 0; i < count; i += 1000) {
        const batch = Array.from({ length: Math.min(1000, count - i) }, (_, j) => make(i + j));
        const body = expectOk('createProducts', await operator('POST', `/stores/${handle}/products`, { products: batch }));
        ids.push(...(body.products as { id: string }[]).map((p) => p.id));
      }
      return ids;
    },
    close,
  };
}

/**
 * fetch over real HTTP to the loopback server, keeping a store's host name (`{handle}.localhost:<port>`)
 * in the Host header, as OAuth refresh and cancel need (Node's fetch cannot send another Host).
 */
export const viaLoopback: typeof fetch = async (input, init) => {
  const url = new URL(String(input));
  const host = url.host;
  url.hostname = '127.0.0.1';
  const headers = { ...(init?.headers as Record<string, string> | undefined), host };
  const answer = await request(url, {
    method: (init?.method ?? 'GET') as 'POST',
    headers,
    body: (init?.body as string | undefined) ?? null,
  });
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
  return new Response(await answer.body.arrayBuffer(), { status: answer.statusCode, headers: responseHeaders });
};

/**
 * What `tsc --strict` (nodenext modules, ES2022, Node's types, plus `flags`) prints about `files` in
 * `cwd` and about the declaration files under `declarations` (the SDK's, as the files load them): ''
 * when they type-check (type-check.ts).
 */
export function strictTypeErrors(
  cwd: string,
  files: string[],
  { flags = [], declarations }: { flags?: string[]; declarations: string[] },
): string {
  return typeErrors(cwd, files, strictArgs(flags), declarations);
}

const strictArgs = (flags: string[] = []) => [
  '--strict',
  '--noEmit',
  ...flags,
  '--module',
  'nodenext',
  '--moduleResolution',
  'nodenext',
  '--target',
  'es2022',
  '--types',
  'node',
];

/** The same check with TypeScript 7 over the whole program (type-check.ts, typeErrors7). */
export function strictTypeErrors7(cwd: string, files: string[], flags: string[] = []): string {
  return typeErrors7(cwd, files, strictArgs(flags));
}
