import { ZErrorBody } from '@platform/contract';

/** The root of every error this SDK throws, so `catch (e) { if (e instanceof PlatformError) ... }` covers them all. */
export class PlatformError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Which request failed: the method and the path (without the query, which may carry cursors). */
export interface RequestIdentity {
  method: string;
  /** The URL path, e.g. `/admin/openapi/v20260901/products/products.json`. */
  path: string;
  /** Where it went: `host:port`, the port written even when it is the scheme's default (`demo.myplatform.com:443`). */
  host?: string;
}

/** `host:port` of a URL, with the scheme's default port written out. */
export function hostAndPort(url: string | URL): string {
  const u = typeof url === 'string' ? new URL(url) : url;
  const port = u.port || (u.protocol === 'https:' ? '443' : u.protocol === 'http:' ? '80' : '');
  return port ? `${u.hostname}:${port}` : u.hostname;
}

/**
 * The messages of an error and of its causes, outermost first: fetch's own message says little
 * (undici: `fetch failed`), the refused address and port are in its cause, several in an
 * AggregateError's `errors` when each address of a name was tried.
 */
export function describeCause(cause: unknown): string {
  const parts: string[] = [];
  let current: unknown = cause;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth += 1) {
    if (!(current instanceof Error)) {
      parts.push(String(current));
      break;
    }
    const inner = (current as { errors?: unknown }).errors;
    const message =
      current.message || (Array.isArray(inner) ? inner.map((e) => (e instanceof Error ? e.message : String(e))).join('; ') : '');
    if (message && !parts.includes(message)) parts.push(message);
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join(': ') || 'unknown error';
}

/**
 * A request the API answered with a failure status. The body of every failure is
 * `{"errors": "<message>"}` (decisions §4); `traceId` is the id the service logged the request under
 * (decisions §3.2), the thing to quote when asking the platform team about it.
 */
export class PlatformApiError extends PlatformError {
  readonly status: number;
  /** The body's `errors` message, or the status text when the body is not the API's JSON. */
  readonly errors: string;
  readonly traceId: string | undefined;
  /** Seconds to wait before retrying, from `Retry-After` (sent with 429, decisions §7.2). */
  readonly retryAfter?: number;
  readonly method: string | undefined;
  readonly path: string | undefined;

  constructor(init: { status: number; errors: string; traceId?: string; retryAfter?: number; method?: string; path?: string }) {
    const where = init.method && init.path ? `${init.method} ${init.path}: ` : '';
    super(`${where}HTTP ${init.status}: ${init.errors}${init.traceId ? ` (traceId ${init.traceId})` : ''}`);
    this.status = init.status;
    this.errors = init.errors;
    this.traceId = init.traceId;
    this.method = init.method;
    this.path = init.path;
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter;
  }
}

const where = (identity: RequestIdentity) => `${identity.method} ${identity.path}${identity.host ? ` at ${identity.host}` : ''}`;

/**
 * The request never got an answer (DNS, refused or reset connection) after the retries allowed. The
 * message names the method, path, host and port and the causes (`GET /admin/... at 127.0.0.1:3000:
 * network error: fetch failed: connect ECONNREFUSED 127.0.0.1:3000`); `cause` is fetch's error.
 */
export class PlatformNetworkError extends PlatformError {
  readonly method: string;
  readonly path: string;
  /** `host:port` the request went to. */
  readonly host: string | undefined;
  constructor(identity: RequestIdentity, cause: unknown, message = `network error: ${describeCause(cause)}`) {
    super(`${where(identity)}: ${message}`, { cause });
    this.method = identity.method;
    this.path = identity.path;
    this.host = identity.host;
  }
}

/** No answer within `timeoutMs` (per attempt). An abort through your own `signal` is not this: it rejects with the signal's reason. */
export class PlatformTimeoutError extends PlatformNetworkError {
  readonly timeoutMs: number;
  constructor(identity: RequestIdentity, timeoutMs: number) {
    const message = `no answer within ${timeoutMs} ms`;
    super(identity, new Error(message), message);
    this.timeoutMs = timeoutMs;
  }
}

/**
 * `Retry-After` in seconds: delay-seconds as the API sends it (decisions §7.2), or an HTTP date (a
 * proxy's answer) counted from `now`. Undefined when absent or unreadable. Never milliseconds.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  // HTTP dates begin with the day name; Date.parse alone would read '-5' or '1.5' as dates.
  const at = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Reads a failed response (its body included) into a `PlatformApiError`. */
export async function apiErrorFromResponse(response: Response, identity?: RequestIdentity, now?: number): Promise<PlatformApiError> {
  const text = await response.text().catch(() => '');
  let message: string | undefined;
  try {
    const body = ZErrorBody.safeParse(JSON.parse(text));
    if (body.success) message = body.data.errors;
  } catch {
    // Not the API's JSON (a proxy's HTML page, an empty body): the status text says what there is to say.
  }
  const traceId = response.headers.get('traceId') ?? undefined;
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'), now);
  return new PlatformApiError({
    status: response.status,
    errors: message ?? (response.statusText || `HTTP ${response.status}`),
    ...(traceId !== undefined ? { traceId } : {}),
    ...(retryAfter !== undefined ? { retryAfter } : {}),
    ...(identity ? { method: identity.method, path: identity.path } : {}),
  });
}
