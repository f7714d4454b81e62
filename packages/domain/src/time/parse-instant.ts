import { daysInMonth } from './count-days';

export type InstantResult = { ok: true; value: Date } | { ok: false; message: string };

// decisions §3.3: a request time is an ISO 8601 date and time with an offset or `Z`, in the one
// form the decisions show (`2026-11-22T12:05:01+08:00`): seconds required, an optional fraction
// after `.`, the offset `Z` or `+hh:mm`. Other ISO 8601 spellings (`+08`, `+0800`, no seconds,
// `,5`) are refused: a time the API echoes (resource feedback) must read back in every client and
// on every page exactly as it was accepted (issue 14, finding 4).
export const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

const NOT_AN_INSTANT = 'must be an ISO 8601 date and time with an offset or Z (e.g. 2026-11-22T12:05:01+08:00)';

/** Parses a request time; the message has no field name (join with `joinIssues`). */
export function parseIsoInstant(s: string): InstantResult {
  const m = typeof s === 'string' ? INSTANT.exec(s) : null;
  if (!m) return { ok: false, message: NOT_AN_INSTANT };
  const [, y, mo, d, h, mi, sec, frac, zulu, sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(sec);
  const millis = frac === undefined ? 0 : Number(frac.slice(0, 3).padEnd(3, '0'));
  const offsetHours = zulu ? 0 : Number(oh);
  const offsetMinutes = zulu ? 0 : Number(om);
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth(year, month) ||
    hour > 23 ||
    minute > 59 ||
    second > 59 ||
    offsetHours > 23 ||
    offsetMinutes > 59
  ) {
    return { ok: false, message: 'is not a valid date and time' };
  }
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, millis);
  const offsetMs = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  return { ok: true, value: new Date(local.getTime() - offsetMs) };
}

/**
 * The instants a request may store: from the Unix epoch to a day before the year 10000. Every one
 * renders in every store's zone with a four-digit year (a later instant would need a five-digit
 * year in a zone east of UTC), and PostgreSQL stores every one (it has no year 0, and an instant of
 * year 0 or 10000 failed there with a 500 where SQLite took it).
 */
export const EARLIEST_STORED_MS = Date.UTC(1970, 0, 1);
export const LATEST_STORED_MS = Date.UTC(9999, 11, 30, 23, 59, 59, 999);
export const OUT_OF_STORED_RANGE = 'must be between 1970-01-01T00:00:00Z and 9999-12-30T23:59:59Z';

/**
 * A request time the platform stores (a product's published_at, a store's plan_expires_at,
 * feedback times, the manual clock): parseIsoInstant, then within the range above.
 */
export function parseStoredInstant(s: string): InstantResult {
  const parsed = parseIsoInstant(s);
  if (!parsed.ok) return parsed;
  const ms = parsed.value.getTime();
  return ms < EARLIEST_STORED_MS || ms > LATEST_STORED_MS ? { ok: false, message: OUT_OF_STORED_RANGE } : parsed;
}

/**
 * The dates whose instants may fall outside that range with some offset, for /openapi.json (as
 * `not: {pattern}`): years before 1970, 1970-01-01 (an offset east of UTC makes it 1969), and
 * 9999-12-30 and -31 (an offset west of UTC makes them later than the last day). Every other date
 * the request pattern takes is inside the range whatever its offset (offsets are under 24 hours).
 */
export const OUT_OF_STORED_RANGE_DATES = /^(?:0[0-9]{3}|1[0-8][0-9]{2}|19[0-6][0-9]|1970-01-01T|9999-12-3[01]T)/;
