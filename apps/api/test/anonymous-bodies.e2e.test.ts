import { signTokenRequest } from '@platform/domain';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess, type ApiProcess } from './api-process';
import { call, freshDatabase, OPERATOR_TOKEN, startPlatform } from './harness';
import { createOAuthApp, signIn, type OAuthApp } from './oauth.helpers';

/*
 * Issue 14, finding 1: every route outside the Admin and operator APIs refuses what it can before
 * reading a body, and reads at most its own small limit. An anonymous 8 MB body used to be buffered
 * and parsed first (8 s per request, the event loop blocked, RSS up 450 MB a request).
 *
 * The server runs in its own process (the built start entry), so its memory and CPU time are
 * measured alone. The bound was "within 1 s"; what it means is that no body is read: a
 * refusal on the headers costs the server milliseconds of CPU, while parsing 8 MB took 8 s of it.
 * The test counts the server's CPU time per request rather than the wall time, which a loaded
 * machine stretches at will (issue 42).
 */

const EIGHT_MB = (() => {
  const n = 8 * 1024 * 1024 - 100;
  return Buffer.from(`[${new Array(Math.floor(n / 3)).fill('{}').join(',')}]`);
})();

interface Answer {
  status: number;
  ms: number;
}

/**
 * One request on a raw socket: the head, then the body written without waiting, and the status
 * line as soon as it arrives (a server that answers before reading the body answers at once).
 *
 * A server that answers early closes the connection while the body is still being written, so a
 * write can fail (EPIPE, ECONNRESET) before the answer already received is read: the socket is then
 * destroyed with the answer unread. Writes give the event loop a turn first, so an answer that
 * came in is read before the next write; and a request whose socket failed that way before any
 * answer was read is sent again, at most twice more (a server that resets without answering still
 * fails: three times). Seen once in a fresh clone's .ci/run on 2026-11-27.
 */
async function send(port: number, head: string, body: Buffer | undefined, chunked = false): Promise<Answer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await sendOnce(port, head, body, chunked);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= 3 || (code !== 'EPIPE' && code !== 'ECONNRESET')) throw error;
    }
  }
}

function sendOnce(port: number, head: string, body: Buffer | undefined, chunked: boolean): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let done = false;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3}) /.exec(received);
      if (m && !done) {
        done = true;
        resolve({ status: Number(m[1]), ms: performance.now() - started });
        socket.destroy();
      }
    });
    // Writing the rest of a body the server no longer wants may fail once it has answered.
    socket.on('error', (error) => (done ? undefined : reject(error)));
    // The body goes out as the socket takes it and stops once the answer is in: queued all at once,
    // the writes after a server's early answer and close failed (EPIPE) before the answer was read,
    // on a loaded machine (2026-11-26).
    const write = async (data: string | Buffer) => {
      await new Promise((resolve) => setImmediate(resolve));
      if (done || socket.destroyed) return false;
      if (!socket.write(data)) await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
      return !done && !socket.destroyed;
    };
    socket.on('connect', async () => {
      const framing = body === undefined ? '' : chunked ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${body.length}\r\n`;
      if (!(await write(`${head}${framing}\r\n`)) || body === undefined) return;
      for (let i = 0; i < body.length; i += 65_536) {
        const part = body.subarray(i, i + 65_536);
        if (!chunked) {
          if (!(await write(part))) return;
          continue;
        }
        if (!(await write(`${part.length.toString(16)}\r\n`)) || !(await write(part)) || !(await write('\r\n'))) return;
      }
      if (chunked) await write('0\r\n\r\n');
    });
  });
}

function head(method: string, path: string, host: string, headers: Record<string, string> = {}): string {
  const lines = Object.entries({ 'content-type': 'application/json', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
  return `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\n${lines.join('')}`;
}

/** The non-API routes of the server with their methods, read from Fastify's own route table. */
function nonApiRoutes(table: string): { path: string; methods: string[] }[] {
  const routes: { path: string; methods: string[] }[] = [];
  const parents: string[] = [];
  for (const line of table.split('\n')) {
    const m = /^(.*?)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    const path = (parents[depth - 1] ?? '') + m[2]!;
    parents[depth] = path;
    if (m[3] && !path.startsWith('/admin/openapi/') && !path.startsWith('/platform/')) {
      routes.push({ path: path.replace(/:[A-Za-z]+/g, '1'), methods: m[3].split(', ') });
    }
  }
  return routes;
}

/** The form posts of the merchant admin (issue 18), as the route table names them with ids of 1. */
const MERCHANT_ADMIN_FORMS = [
  '/admin/apps/1/uninstall',
  '/admin/private_apps',
  '/admin/private_apps/1/refresh',
  '/admin/private_apps/1/delete',
  '/admin/metafield_definitions',
  '/admin/metafield_definitions/1',
  '/admin/metafield_definitions/1/delete',
  '/admin/products/1/metafields',
];

let api: ApiProcess;
let drop: () => Promise<void>;
let routes: { path: string; methods: string[] }[];
let host: string;

beforeAll(async () => {
  // The route table of the same code, built in this process only to be read.
  const inProcess = await startPlatform();
  routes = nonApiRoutes(inProcess.platform.app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false }));
  await inProcess.close();
  const database = await freshDatabase();
  drop = database.drop;
  api = await startApiProcess(database.url);
  host = `shop.localhost:${api.port}`;
  const store = await call(`${api.origin}/platform/v1/stores`, {
    token: OPERATOR_TOKEN,
    body: { store: { handle: 'shop', name: 'Shop' } },
  });
  expect(store.status).toBe(201);
});
afterAll(async () => {
  await api?.stop();
  await drop?.();
});

describe('anonymous bodies outside the two APIs (issue 14, finding 1)', () => {
  it('reads the route table: the merchant forms, the token calls and the pages are all there', () => {
    const paths = routes.map((r) => r.path);
    for (const known of [
      '/admin/sign-out',
      '/admin/oauth/authorize',
      '/admin/oauth/token/create',
      '/admin/apps/1/deliveries/1/redeliver',
      ...MERCHANT_ADMIN_FORMS,
      '/docs',
      '/healthz',
    ]) {
      expect(paths).toContain(known);
    }
  });

  it('answers an anonymous 8 MB body on every route and method for under 300 ms of CPU, without growing by 50 MB', async () => {
    // Each route answered once first, with a body of 2 bytes: what a route costs the first time it
    // is called (its code compiled, its caches filled) is not what an 8 MB body costs.
    for (const { path, methods } of routes) {
      for (const method of new Set([...methods, 'POST'])) await send(api.port, head(method, path, host), Buffer.from('{}'), false);
    }
    const before = api.rss();
    const seen: string[] = [];
    for (const { path, methods } of routes) {
      for (const method of new Set([...methods, 'POST'])) {
        // Chunked (no length to refuse by) where a body may be read at all: every method but GET and HEAD.
        for (const chunked of method === 'GET' || method === 'HEAD' ? [false] : [false, true]) {
          const cpuBefore = api.cpuMs();
          const r = await send(api.port, head(method, path, host), EIGHT_MB, chunked);
          const cpu = api.cpuMs() - cpuBefore;
          seen.push(`${method} ${path}${chunked ? ' (chunked)' : ''} -> ${r.status} in ${Math.round(r.ms)} ms, ${cpu} ms of CPU`);
          expect(cpu, seen.at(-1)).toBeLessThan(300);
          expect(r.status, seen.at(-1)).toBeLessThan(500);
        }
      }
    }
    // Writes that need a session or a signature were refused (by size, or by their headers), not served.
    const refused = (prefix: string) => seen.filter((s) => s.startsWith(prefix)).map((s) => / -> (\d+) /.exec(s)![1]);
    for (const call of ['create', 'refresh', 'cancel']) expect(refused(`POST /admin/oauth/token/${call} `)).toEqual(['413', '401']);
    expect(refused('POST /admin/oauth/authorize ')).toEqual(['413', '401']);
    expect(refused('POST /admin/apps/1/deliveries/1/redeliver ')).toEqual(['413', '401']);
    // The merchant admin's forms of issue 18: each is gated on its headers like the ones before.
    for (const form of MERCHANT_ADMIN_FORMS) expect(refused(`POST ${form} `), form).toEqual(['413', '401']);
    expect(refused('POST /admin/sign-out ')).toEqual(['413', '303']);
    const grown = api.rss() - before;
    console.log(`RSS grew by ${(grown / 1024 / 1024).toFixed(1)} MB over ${seen.length} requests of 8 MB`);
    expect(grown).toBeLessThan(50 * 1024 * 1024);
  });

  it('keeps /healthz answering while three 8 MB token calls arrive at once', async () => {
    const cpuBefore = api.cpuMs();
    const calls = [1, 2, 3].map(() => send(api.port, head('POST', '/admin/oauth/token/cancel', host), EIGHT_MB));
    const health = await send(api.port, head('GET', '/healthz', '127.0.0.1'), undefined);
    const answers = await Promise.all(calls);
    expect(health.status).toBe(200);
    for (const r of answers) expect(r).toMatchObject({ status: 413 });
    // The event loop was never held by a body: the four answers together cost little CPU (one 8 MB
    // parse took 8 s of it).
    expect(api.cpuMs() - cpuBefore).toBeLessThan(600);
  });
});

describe('bodies over a route limit from a caller the headers admit (issue 14, finding 1)', () => {
  let app: OAuthApp;
  beforeAll(async () => {
    app = await createOAuthApp(api, 'public');
  });

  it('refuses a signed-in merchant form of 8 MB (413), also chunked, and still signs out with a real one', async () => {
    const cookie = await signIn(api, 'shop');
    for (const chunked of [false, true]) {
      const cpuBefore = api.cpuMs();
      const r = await send(
        api.port,
        head('POST', '/admin/sign-out', host, { cookie, 'content-type': 'application/x-www-form-urlencoded' }),
        EIGHT_MB,
        chunked,
      );
      expect(r.status).toBe(413);
      expect(api.cpuMs() - cpuBefore).toBeLessThan(300);
    }
  });

  it('refuses a correctly signed token call of 1 MB (413) before its signature is checked', async () => {
    const body = Buffer.from(JSON.stringify({ code: 'x'.repeat(1024 * 1024) }));
    const clock = await call(`${api.origin}/platform/v1/clock`, { token: OPERATOR_TOKEN });
    const timestamp = String(Date.parse(clock.body.now));
    const sign = signTokenRequest({ secret: app.app_secret, rawBody: body, timestamp });
    for (const chunked of [false, true]) {
      const r = await send(
        api.port,
        head('POST', '/admin/oauth/token/create', host, { appkey: app.app_key, timestamp, sign }),
        body,
        chunked,
      );
      expect(r.status).toBe(413);
    }
  });
});
