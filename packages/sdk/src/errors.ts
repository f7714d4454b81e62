import { ZErrorBody } from '@platform/contract';

/**
 * A request the API answered with a failure status. The body of every failure is
 * `{"errors": "<message>"}` (decisions §4); `traceId` is the id the service logged the request under
 * (decisions §3.2), the thing to quote when asking the platform team about it.
 */
export class PlatformApiError extends Error {
  readonly status: number;
  /** The body's `errors` message, or the status text when the body is not the API's JSON. */
  readonly errors: string;
  readonly traceId: string | undefined;
  /** Seconds to wait before retrying, from `Retry-After` (sent with 429, decisions §7.2). */
  readonly retryAfter?: number;

  constructor(init: { status: number; errors: string; traceId?: string; retryAfter?: number }) {
    super(`HTTP ${init.status}: ${init.errors}${init.traceId ? ` (traceId ${init.traceId})` : ''}`);
    this.name = 'PlatformApiError';
    this.status = init.status;
    this.errors = init.errors;
    this.traceId = init.traceId;
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter;
  }
}

/**
 * `Retry-After` in seconds: delay-seconds as the API sends it, or an HTTP date (a proxy's answer)
 * counted from `now`. Undefined when absent or unreadable.
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
export async function apiErrorFromResponse(response: Response): Promise<PlatformApiError> {
  const text = await response.text().catch(() => '');
  let message: string | undefined;
  try {
    const body = ZErrorBody.safeParse(JSON.parse(text));
    if (body.success) message = body.data.errors;
  } catch {
    // Not the API's JSON (a proxy's HTML page, an empty body): the status text says what there is to say.
  }
  const traceId = response.headers.get('traceId') ?? undefined;
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
  return new PlatformApiError({
    status: response.status,
    errors: message ?? (response.statusText || `HTTP ${response.status}`),
    ...(traceId !== undefined ? { traceId } : {}),
    ...(retryAfter !== undefined ? { retryAfter } : {}),
  });
}
