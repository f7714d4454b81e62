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

/** The request never got an answer (DNS, refused or reset connection) after the retries allowed. `cause` is fetch's error. */
export class PlatformNetworkError extends PlatformError {
  readonly method: string;
  readonly path: string;
  constructor(identity: RequestIdentity, cause: unknown) {
    super(`${identity.method} ${identity.path}: network error: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.method = identity.method;
    this.path = identity.path;
  }
}

/** No answer within `timeoutMs` (per attempt). An abort through your own `signal` is not this: it rejects with the signal's reason. */
export class PlatformTimeoutError extends PlatformNetworkError {
  readonly timeoutMs: number;
  constructor(identity: RequestIdentity, timeoutMs: number) {
    super(identity, new Error(`no answer within ${timeoutMs} ms`));
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
