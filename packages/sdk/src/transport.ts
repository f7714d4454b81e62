import { abortReason, systemClock, type Clock } from './clock';
import {
  apiErrorFromResponse,
  hostAndPort,
  PlatformApiError,
  PlatformError,
  PlatformNetworkError,
  PlatformTimeoutError,
  type RequestIdentity,
} from './errors';
import { createLeakyBucket, sharedBucket, type LeakyBucket, type RateLimitOptions } from './limiter';
import { userAgent } from './user-agent';

export interface RetryOptions {
  /** Retries after the first attempt (default 4). */
  maxRetries?: number;
  /** Full-jitter backoff: attempt n waits random(0, min(maxDelayMs, baseDelayMs * 2^n)) (default 500 ms). */
  baseDelayMs?: number;
  /** Upper bound of one backoff wait (default 30 s). */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown at once (default 120 s). */
  maxRetryAfterSeconds?: number;
  /**
   * Statuses worth another attempt (default 409, 429, 500, 502, 503, 504). A 429 is retried for every
   * request (it was not carried out); the others only for requests that are safe to repeat: GET, HEAD,
   * PUT, DELETE, and a POST carrying an `Idempotency-Key` (409 is only that POST's "still running").
   */
  statuses?: readonly number[];
}

/** What the client does, for logs and metrics. `url` includes the query; `path` does not. */
export type SdkEvent =
  | { type: 'request'; method: string; url: string; path: string; attempt: number; idempotencyKey?: string }
  | {
      type: 'response';
      method: string;
      url: string;
      path: string;
      attempt: number;
      status: number;
      durationMs: number;
      traceId: string | undefined;
      apiCallLimit: string | undefined;
    }
  | {
      type: 'retry';
      method: string;
      url: string;
      path: string;
      attempt: number;
      delayMs: number;
      reason: 'status' | 'network' | 'timeout';
      status?: number;
      traceId?: string;
      error?: unknown;
      idempotencyKey?: string;
    }
  | { type: 'throttle'; method: string; url: string; path: string; waitMs: number; used: number; capacity: number }
  | { type: 'deprecation'; apiVersion: string; retiresOn: string; message: string };

/** Any object with these methods (console, pino, winston). Requests and responses go to debug, retries, throttling and deprecation to warn. */
export interface Logger {
  debug?(message: string, data?: unknown): void;
  warn?(message: string, data?: unknown): void;
}

export interface TransportOptions {
  /** The bearer token, or a function giving the current one (e.g. from a token store, refreshed). */
  accessToken: string | (() => string | Promise<string>);
  fetch?: typeof fetch;
  /** Per attempt (default 30 s). */
  timeoutMs?: number;
  /** `false`: no retries. */
  retry?: RetryOptions | false;
  /** `false`: no client-side pacing. */
  rateLimit?: RateLimitOptions | false;
  clock?: Clock;
  /** A number in [0, 1) for the jitter (default Math.random). */
  random?: () => number;
  onEvent?: (event: SdkEvent) => void;
  logger?: Logger;
  /**
   * Send a fresh `Idempotency-Key` with every POST that has none (default true), which is what makes
   * a POST safe to retry after a 5xx, a timeout or a dropped connection. `false`: POSTs go without
   * one (unless you give one in `headers`) and are then retried after a 429 only.
   */
  idempotencyKeys?: boolean;
}

export interface SendRequest {
  method: string;
  url: string;
  body?: unknown;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  traceId: string | undefined;
}

export type Send = (request: SendRequest) => Promise<Answer>;

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const DEFAULT_STATUSES = [409, 429, 500, 502, 503, 504];
const IDEMPOTENCY_KEY = 'Idempotency-Key';

function headerOf(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === lower) return value;
  return undefined;
}

/**
 * A fresh key per POST (docs/idempotency.md): a random UUID, so two operations never share one.
 * Browsers offer `randomUUID` on https pages only; `getRandomValues` everywhere.
 */
function newIdempotencyKey(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const hex = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20)}`;
}

function describe(event: SdkEvent): string {
  switch (event.type) {
    case 'request':
      return `${event.method} ${event.path} (attempt ${event.attempt + 1})`;
    case 'response':
      return `${event.method} ${event.path} -> ${event.status} in ${event.durationMs} ms (traceId ${event.traceId ?? '-'})`;
    case 'retry':
      return `${event.method} ${event.path}: retrying in ${event.delayMs} ms after ${event.status ?? event.reason}`;
    case 'throttle':
      return `${event.method} ${event.path}: waiting ${event.waitMs} ms for the rate limit (${event.used}/${event.capacity})`;
    case 'deprecation':
      return event.message;
  }
}

export function emitter(options: Pick<TransportOptions, 'onEvent' | 'logger'>): (event: SdkEvent) => void {
  return (event) => {
    options.onEvent?.(event);
    const log = event.type === 'request' || event.type === 'response' ? options.logger?.debug : options.logger?.warn;
    log?.call(options.logger, `[platform-sdk] ${describe(event)}`, event);
  };
}

/**
 * One authenticated JSON request with pacing, timeout, retries and events. Failures become
 * `PlatformApiError` (an answer) or `PlatformNetworkError`/`PlatformTimeoutError` (none); an abort
 * through the caller's signal rejects with the signal's reason.
 */
export function createTransport(options: TransportOptions & { bucketKey: string }): Send {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') throw new TypeError('createClient: this runtime has no fetch; pass options.fetch');
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const retry = options.retry === false ? { maxRetries: 0 } : (options.retry ?? {});
  const maxRetries = retry.maxRetries ?? 4;
  const baseDelay = retry.baseDelayMs ?? 500;
  const maxDelay = retry.maxDelayMs ?? 30_000;
  const maxRetryAfter = retry.maxRetryAfterSeconds ?? 120;
  const statuses = new Set(retry.statuses ?? DEFAULT_STATUSES);
  const emit = emitter(options);
  const rateLimit = options.rateLimit;
  const bucket: LeakyBucket | undefined =
    rateLimit === false ? undefined : sharedBucket(options.bucketKey, () => createLeakyBucket({ ...rateLimit, clock }));
  const token = async () => (typeof options.accessToken === 'function' ? await options.accessToken() : options.accessToken);

  const backoff = (attempt: number) => Math.floor(random() * Math.min(maxDelay, baseDelay * 2 ** attempt));

  return async function send(request) {
    const method = request.method.toUpperCase();
    const url = new URL(request.url);
    const path = url.pathname;
    const identity: RequestIdentity = { method, path, host: hostAndPort(url) };
    // A POST carries an Idempotency-Key (the caller's, or a fresh one), the same on every attempt:
    // the service answers a repeat with the first answer, so retrying it cannot write twice.
    const givenKey = headerOf(request.headers, IDEMPOTENCY_KEY);
    const idempotencyKey = givenKey ?? (method === 'POST' && options.idempotencyKeys !== false ? newIdempotencyKey() : undefined);
    const repeatable = IDEMPOTENT.has(method) || idempotencyKey !== undefined;
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);
    const base = { method, url: request.url, path };
    const keyed = idempotencyKey !== undefined ? { idempotencyKey } : {};

    for (let attempt = 0; ; attempt += 1) {
      await bucket?.acquire(request.signal, (info) => emit({ type: 'throttle', ...base, ...info }));
      if (request.signal?.aborted) throw abortReason(request.signal);
      // The spec: "All requests send the header Content-Type with the fixed value application/json;
      // charset=utf-8", GET and DELETE included (the service takes any type on an empty body).
      const headers: Record<string, string> = {
        Accept: 'application/json',
        'User-Agent': userAgent(),
        ...request.headers,
        'Content-Type': 'application/json; charset=utf-8',
        Authorization: `Bearer ${await token()}`,
      };
      if (idempotencyKey !== undefined && givenKey === undefined) headers[IDEMPOTENCY_KEY] = idempotencyKey;
      emit({ type: 'request', ...base, attempt, ...keyed });

      const timeout = new AbortController();
      const onAbort = () => timeout.abort(request.signal?.reason);
      request.signal?.addEventListener('abort', onAbort, { once: true });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        timeout.abort();
      }, timeoutMs);
      const started = clock.now();
      let response: Response;
      try {
        response = await fetchImpl(request.url, { method, headers, signal: timeout.signal, ...(body !== undefined ? { body } : {}) });
      } catch (error) {
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        if (request.signal?.aborted) throw abortReason(request.signal);
        const failure = timedOut ? new PlatformTimeoutError(identity, timeoutMs) : new PlatformNetworkError(identity, error);
        // A request that may have reached the service is only repeated when repeating it is harmless.
        if (!repeatable || attempt >= maxRetries) throw failure;
        const delayMs = backoff(attempt);
        emit({ type: 'retry', ...base, attempt, delayMs, reason: timedOut ? 'timeout' : 'network', error, ...keyed });
        await clock.sleep(delayMs, request.signal);
        continue;
      }
      request.signal?.removeEventListener('abort', onAbort);
      try {
        bucket?.observe(response.headers.get('x-platform-api-call-limit'));
        const traceId = response.headers.get('traceId') ?? undefined;
        emit({
          type: 'response',
          ...base,
          attempt,
          status: response.status,
          durationMs: clock.now() - started,
          traceId,
          apiCallLimit: response.headers.get('x-platform-api-call-limit') ?? undefined,
        });
        if (response.ok) {
          const text = await response.text();
          let parsed: unknown = {};
          try {
            if (text) parsed = JSON.parse(text);
          } catch {
            // A 2xx that is not the API's JSON (a captive portal, a misrouted proxy): say which request.
            throw new PlatformError(`${method} ${path}: HTTP ${response.status} with a body that is not JSON (traceId ${traceId ?? '-'})`);
          }
          return { status: response.status, headers: response.headers, body: parsed, traceId };
        }
        const error = await apiErrorFromResponse(response, identity, clock.now());
        // A 429 was refused before anything ran; a 5xx may have come after the write committed.
        const mayRepeat = error.status === 429 || (error.status === 409 ? idempotencyKey !== undefined : repeatable);
        if (!statuses.has(error.status) || !mayRepeat || attempt >= maxRetries) throw error;
        if (error.retryAfter !== undefined && error.retryAfter > maxRetryAfter) throw error;
        // decisions §7.2: Retry-After is whole seconds. A 429 holds the whole bucket, so the other requests
        // of this (app, store) wait too instead of each meeting its own 429.
        if (error.status === 429) bucket?.holdFor(error.retryAfter ?? 1);
        const delayMs = error.retryAfter !== undefined ? error.retryAfter * 1000 : backoff(attempt);
        emit({
          type: 'retry',
          ...base,
          attempt,
          delayMs,
          reason: 'status',
          status: error.status,
          ...(error.traceId ? { traceId: error.traceId } : {}),
          ...keyed,
        });
        await clock.sleep(delayMs, request.signal);
      } finally {
        clearTimeout(timer);
      }
    }
  };
}

export { PlatformApiError };
