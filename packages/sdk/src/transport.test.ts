import { describe, expect, it, vi } from 'vitest';
import { version } from '../package.json';
import { fakeClock } from '../test/fake-clock';
import { PlatformApiError, PlatformNetworkError, PlatformTimeoutError } from './errors';
import { createTransport, type SdkEvent, type TransportOptions } from './transport';

const URL_ = 'https://demo.myplatform.com/admin/openapi/v20260901/merchants/shop.json?x=1';
let keys = 0;

type Step = { status: number; headers?: Record<string, string>; body?: unknown } | 'network';

/** A scripted fetch: one step per call, recording what was sent. */
function scripted(steps: Step[]) {
  const calls: { method: string; headers: Record<string, string>; body: string | undefined }[] = [];
  const fakeFetch = (async (_url: string, init: RequestInit) => {
    calls.push({ method: String(init.method), headers: init.headers as Record<string, string>, body: init.body as string | undefined });
    const step = steps.shift();
    if (step === undefined) throw new Error('no more steps');
    if (step === 'network') throw new TypeError('fetch failed');
    return new Response(step.body === undefined ? '{"ok":true}' : JSON.stringify(step.body), {
      status: step.status,
      headers: { 'content-type': 'application/json', traceId: `t-${calls.length}`, ...step.headers },
    });
  }) as unknown as typeof globalThis.fetch;
  return { fetch: fakeFetch, calls };
}

function transport(steps: Step[], options: Partial<TransportOptions> = {}) {
  const clock = fakeClock();
  const events: SdkEvent[] = [];
  const { fetch, calls } = scripted(steps);
  const send = createTransport({
    accessToken: 'token',
    fetch,
    clock,
    random: () => 0.5,
    onEvent: (e) => events.push(e),
    bucketKey: `unit-${(keys += 1)}`,
    ...options,
  });
  return { send, clock, events, calls };
}

const retries = (events: SdkEvent[]) => events.filter((e) => e.type === 'retry');

describe(createTransport.name, () => {
  it('sends Content-Type: application/json; charset=utf-8 on every request, GET and DELETE included (the spec)', async () => {
    const t = transport([{ status: 200 }, { status: 200 }, { status: 200 }]);
    await t.send({ method: 'GET', url: URL_ });
    await t.send({ method: 'DELETE', url: URL_ });
    await t.send({ method: 'POST', url: URL_, body: { a: 1 } });
    expect(t.calls.map((c) => c.headers['Content-Type'])).toEqual(Array(3).fill('application/json; charset=utf-8'));
  });

  it('waits Retry-After in seconds after a 429, then succeeds (decisions §7.2)', async () => {
    const t = transport([{ status: 429, headers: { 'Retry-After': '2' }, body: { errors: 'Too many requests' } }, { status: 200 }]);
    const answer = await t.send({ method: 'GET', url: URL_ });
    expect(answer.body).toEqual({ ok: true });
    expect(t.clock.sleeps).toContain(2000);
    expect(retries(t.events)).toEqual([
      expect.objectContaining({ delayMs: 2000, status: 429, attempt: 0, path: '/admin/openapi/v20260901/merchants/shop.json' }),
    ]);
  });

  it('backs off with full jitter on 5xx without Retry-After: random(0, base * 2^attempt)', async () => {
    const t = transport([{ status: 503 }, { status: 502 }, { status: 200 }], { retry: { baseDelayMs: 1000 } });
    await t.send({ method: 'GET', url: URL_ });
    expect(retries(t.events).map((e) => (e.type === 'retry' ? e.delayMs : 0))).toEqual([500, 1000]);
  });

  it('caps the backoff at maxDelayMs', async () => {
    const t = transport([{ status: 500 }, { status: 500 }, { status: 500 }, { status: 200 }], {
      retry: { baseDelayMs: 1000, maxDelayMs: 1500 },
    });
    await t.send({ method: 'GET', url: URL_ });
    expect(retries(t.events).map((e) => (e.type === 'retry' ? e.delayMs : 0))).toEqual([500, 750, 750]);
  });

  it('gives up after maxRetries with the last error, naming the request', async () => {
    const t = transport(
      [
        { status: 500, body: { errors: 'Internal Server Error' } },
        { status: 500, body: { errors: 'Internal Server Error' } },
      ],
      {
        retry: { maxRetries: 1 },
      },
    );
    const error = await t.send({ method: 'GET', url: URL_ }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformApiError);
    expect(error).toMatchObject({ status: 500, method: 'GET', path: '/admin/openapi/v20260901/merchants/shop.json', traceId: 't-2' });
    expect(t.calls).toHaveLength(2);
  });

  it('does not wait for a Retry-After longer than maxRetryAfterSeconds', async () => {
    const t = transport([{ status: 429, headers: { 'Retry-After': '3600' }, body: { errors: 'Too many requests' } }]);
    await expect(t.send({ method: 'GET', url: URL_ })).rejects.toMatchObject({ status: 429, retryAfter: 3600 });
    expect(t.clock.sleeps).toEqual([]);
  });

  it('does not retry a 4xx other than 429', async () => {
    const t = transport([{ status: 422, body: { errors: 'key: is too short' } }]);
    await expect(t.send({ method: 'POST', url: URL_, body: {} })).rejects.toMatchObject({
      status: 422,
      errors: 'key: is too short',
      method: 'POST',
    });
    expect(t.calls).toHaveLength(1);
  });

  it('retries a network error of an idempotent request', async () => {
    const t = transport(['network', { status: 200 }]);
    await expect(t.send({ method: 'GET', url: URL_ })).resolves.toMatchObject({ status: 200 });
    expect(retries(t.events)).toEqual([expect.objectContaining({ reason: 'network' })]);
  });

  it('does not repeat a POST without an Idempotency-Key that may have reached the service', async () => {
    const t = transport(['network', { status: 200 }], { idempotencyKeys: false });
    const error = await t.send({ method: 'POST', url: URL_, body: { a: 1 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformNetworkError);
    expect(error).toMatchObject({ method: 'POST', path: '/admin/openapi/v20260901/merchants/shop.json' });
    expect(t.calls).toHaveLength(1);
  });

  it('retries 429 and 5xx on a POST too (a 429 was not processed)', async () => {
    const t = transport([{ status: 429, headers: { 'Retry-After': '1' } }, { status: 201 }]);
    await expect(t.send({ method: 'POST', url: URL_, body: {} })).resolves.toMatchObject({ status: 201 });
  });

  it('sends the bearer token and a JSON body with charset=utf-8, and asks a token function each attempt', async () => {
    let n = 0;
    const t = transport([{ status: 503 }, { status: 200 }], { accessToken: async () => `token-${(n += 1)}` });
    await t.send({ method: 'PUT', url: URL_, body: { name: 'ü' } });
    expect(t.calls.map((c) => c.headers.Authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
    expect(t.calls[0]).toMatchObject({ body: '{"name":"ü"}', headers: { 'Content-Type': 'application/json; charset=utf-8' } });
  });

  it('rejects with the signal reason when the caller aborts, without retrying', async () => {
    const controller = new AbortController();
    const reason = new Error('user left');
    const fetch = ((_u: string, init: RequestInit) =>
      new Promise((_resolve, reject) =>
        init.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
      )) as unknown as typeof globalThis.fetch;
    const t = transport([], { fetch });
    const pending = t.send({ method: 'GET', url: URL_, signal: controller.signal });
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(retries(t.events)).toEqual([]);
  });

  it('times out an attempt that gets no answer', async () => {
    const fetch = ((_u: string, init: RequestInit) =>
      new Promise((_resolve, reject) =>
        init.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
      )) as unknown as typeof globalThis.fetch;
    const t = transport([], { fetch, timeoutMs: 20, retry: { maxRetries: 1 } });
    const error = await t.send({ method: 'GET', url: URL_ }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformTimeoutError);
    expect(retries(t.events)).toEqual([expect.objectContaining({ reason: 'timeout' })]);
  });

  it('makes the other requests of the same (app, store) wait after a 429 instead of each meeting one', async () => {
    const t = transport([{ status: 429, headers: { 'Retry-After': '4' } }, { status: 200 }, { status: 200 }]);
    await t.send({ method: 'GET', url: URL_ });
    await t.send({ method: 'GET', url: URL_ });
    expect(t.calls).toHaveLength(3);
    expect(t.events.filter((e) => e.type === 'response').map((e) => (e.type === 'response' ? e.status : 0))).toEqual([429, 200, 200]);
  });

  it('logs requests to debug and retries to warn', async () => {
    const lines: string[] = [];
    const t = transport([{ status: 503 }, { status: 200 }], {
      logger: { debug: (m) => lines.push(`debug ${m}`), warn: (m) => lines.push(`warn ${m}`) },
    });
    await t.send({ method: 'GET', url: URL_ });
    expect(lines.some((l) => l.startsWith('warn [platform-sdk] GET /admin/openapi/v20260901/merchants/shop.json: retrying'))).toBe(true);
    expect(lines.some((l) => l.startsWith('debug [platform-sdk] GET /admin/openapi/v20260901/merchants/shop.json -> 200'))).toBe(true);
  });
});

describe('POSTs, Idempotency-Key and retries (docs/idempotency.md)', () => {
  const keyOf = (call: { headers: Record<string, string> }) => call.headers['Idempotency-Key'];

  it('sends a fresh key with every POST, the same on each of its attempts', async () => {
    const t = transport(['network', { status: 201 }, { status: 201 }]);
    await t.send({ method: 'POST', url: URL_, body: { a: 1 } });
    await t.send({ method: 'POST', url: URL_, body: { a: 1 } });
    const [first, retry, other] = t.calls.map(keyOf);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(retry).toBe(first);
    expect(other).toMatch(/^[0-9a-f-]{36}$/);
    expect(other).not.toBe(first);
    expect(retries(t.events)).toEqual([expect.objectContaining({ reason: 'network', idempotencyKey: first })]);
  });

  it('makes v4 UUID keys where crypto has no randomUUID (a browser page on http)', async () => {
    const real = globalThis.crypto;
    vi.stubGlobal('crypto', { getRandomValues: (bytes: Uint8Array) => real.getRandomValues(bytes) });
    try {
      const t = transport([{ status: 201 }, { status: 201 }]);
      await t.send({ method: 'POST', url: URL_, body: {} });
      await t.send({ method: 'POST', url: URL_, body: {} });
      const [a, b] = t.calls.map(keyOf);
      expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(b).not.toBe(a);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it.each([500, 502, 503, 504])('retries a keyed POST after a %s', async (status) => {
    const t = transport([{ status, body: { errors: 'x' } }, { status: 201 }]);
    await expect(t.send({ method: 'POST', url: URL_, body: {} })).resolves.toMatchObject({ status: 201 });
    expect(new Set(t.calls.map(keyOf)).size).toBe(1);
  });

  it('retries a keyed POST after a timeout', async () => {
    let calls = 0;
    const keys: string[] = [];
    const fetch = ((_u: string, init: RequestInit) => {
      keys.push((init.headers as Record<string, string>)['Idempotency-Key']!);
      calls += 1;
      if (calls > 1) return Promise.resolve(new Response('{"ok":true}', { status: 201 }));
      return new Promise((_resolve, reject) =>
        init.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
      );
    }) as unknown as typeof globalThis.fetch;
    const t = transport([], { fetch, timeoutMs: 20 });
    await expect(t.send({ method: 'POST', url: URL_, body: {} })).resolves.toMatchObject({ status: 201 });
    expect(retries(t.events)).toEqual([expect.objectContaining({ reason: 'timeout' })]);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('waits out a 409 (the first attempt still running on the service) for a keyed POST, after Retry-After', async () => {
    const t = transport([{ status: 409, headers: { 'Retry-After': '1' }, body: { errors: 'still being processed' } }, { status: 201 }]);
    await expect(t.send({ method: 'POST', url: URL_, body: {} })).resolves.toMatchObject({ status: 201 });
    expect(t.clock.sleeps).toEqual([1000]);
  });

  it('retries a POST without a key after a 429 only, never after a 5xx or a 409', async () => {
    for (const status of [500, 503, 409]) {
      const t = transport([{ status, body: { errors: 'x' } }, { status: 201 }], { idempotencyKeys: false });
      await expect(t.send({ method: 'POST', url: URL_, body: {} })).rejects.toMatchObject({ status, method: 'POST' });
      expect(t.calls).toHaveLength(1);
      expect(keyOf(t.calls[0]!)).toBeUndefined();
    }
    const t = transport([{ status: 429, headers: { 'Retry-After': '1' } }, { status: 201 }], { idempotencyKeys: false });
    await expect(t.send({ method: 'POST', url: URL_, body: {} })).resolves.toMatchObject({ status: 201 });
  });

  it("keeps the caller's own key (any spelling), sends it once, and retries with it even when keys are off", async () => {
    const t = transport([{ status: 502 }, { status: 201 }], { idempotencyKeys: false });
    await t.send({ method: 'POST', url: URL_, body: {}, headers: { 'idempotency-key': 'order-42' } });
    for (const call of t.calls) {
      expect(Object.entries(call.headers).filter(([name]) => name.toLowerCase() === 'idempotency-key')).toEqual([
        ['idempotency-key', 'order-42'],
      ]);
    }
    expect(t.calls).toHaveLength(2);
  });

  it('sends no key with other methods, and does not retry a 409 there', async () => {
    const t = transport([{ status: 409, body: { errors: 'x' } }]);
    await expect(t.send({ method: 'PUT', url: URL_, body: {} })).rejects.toMatchObject({ status: 409 });
    expect(keyOf(t.calls[0]!)).toBeUndefined();
    expect(t.calls).toHaveLength(1);
  });

  it("says who is calling: User-Agent platform-sdk/<the package's version> node/<Node's>", async () => {
    const t = transport([{ status: 200 }]);
    await t.send({ method: 'GET', url: URL_ });
    expect(t.calls[0]!.headers['User-Agent']).toBe(`platform-sdk/${version} node/${process.versions.node}`);
  });
});

describe('a 2xx that is not JSON', () => {
  it('is a PlatformError naming the request, not a bare SyntaxError', async () => {
    const fetch = (async () => new Response('<html>login</html>', { status: 200 })) as unknown as typeof globalThis.fetch;
    const send = createTransport({ accessToken: 't', fetch, bucketKey: 'non-json', rateLimit: false });
    await expect(send({ method: 'GET', url: URL_ })).rejects.toThrow(
      /GET \/admin\/openapi\/v20260901\/merchants\/shop\.json: HTTP 200 with a body that is not JSON/,
    );
  });
});
