/**
 * decisions §11.5: the waits after each failed attempt of a delivery. Eight retries follow the first
 * attempt, so a delivery has at most nine attempts; the wait after attempt n is RETRY_WAITS_MS[n-1].
 */
export const RETRY_WAITS_MS: readonly number[] = [
  10_000,
  30_000,
  60_000,
  5 * 60_000,
  15 * 60_000,
  30 * 60_000,
  60 * 60_000,
  2 * 60 * 60_000,
];

/** Attempts a delivery gets in all: the first one and eight retries. */
export const MAX_DELIVERY_ATTEMPTS = RETRY_WAITS_MS.length + 1;

/**
 * A `Retry-After` answer replaces the scheduled wait, but never beyond the schedule's longest wait,
 * and never below its shortest: `Retry-After: 0` must not let a receiver spend a delivery's nine
 * attempts in a moment (decisions §11.5).
 */
export const MAX_RETRY_AFTER_MS = 2 * 60 * 60_000;
export const MIN_RETRY_AFTER_MS = 10_000;

/** Each wait is drawn uniformly from +/-20 % of its nominal value. */
export const RETRY_JITTER = 0.2;

/**
 * What follows a failed attempt: the wait before the next one, or `undefined` when that was the last
 * attempt (the delivery is then `failed`). `attempt` is the failed attempt's number (1 for the
 * first). `random` is a number in [0, 1) (Math.random in the sender; fixed in tests).
 * `retryAfterMs` (from the answer's `Retry-After`, see parseRetryAfter) replaces the jittered wait,
 * bounded to [MIN_RETRY_AFTER_MS, MAX_RETRY_AFTER_MS].
 */
export function nextRetryDelayMs(attempt: number, random: number, retryAfterMs?: number): number | undefined {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a positive integer (got ${attempt})`);
  if (attempt >= MAX_DELIVERY_ATTEMPTS) return undefined;
  if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) {
    return Math.min(Math.max(Math.round(retryAfterMs), MIN_RETRY_AFTER_MS), MAX_RETRY_AFTER_MS);
  }
  const nominal = RETRY_WAITS_MS[attempt - 1]!;
  const r = Math.min(Math.max(Number.isFinite(random) ? random : 0.5, 0), 1);
  return Math.round(nominal * (1 - RETRY_JITTER + 2 * RETRY_JITTER * r));
}

const HTTP_DATE_NAMES =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * A `Retry-After` header as milliseconds from `now` (RFC 9110 §10.2.3): delay-seconds (digits only)
 * or an HTTP date (IMF-fixdate; a date in the past means "now": 0). Anything else, including
 * negative or fractional seconds and the obsolete date forms, is ignored: `undefined`, and the
 * schedule's own wait applies. The result is not bounded here (nextRetryDelayMs bounds it).
 */
export function parseRetryAfter(value: string | readonly string[] | undefined, now: Date): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (/^\d+$/.test(text)) {
    // Huge numbers of seconds stay finite and are capped later.
    const digits = text.replace(/^0+(?=\d)/, '');
    const seconds = Number(digits.length > 15 ? '999999999999999' : digits);
    return seconds * 1000;
  }
  if (!HTTP_DATE_NAMES.test(text)) return undefined;
  const at = Date.parse(text);
  if (!Number.isFinite(at)) return undefined;
  return Math.max(0, at - now.getTime());
}
