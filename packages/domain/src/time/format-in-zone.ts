// decisions §3.3: response times are ISO 8601, second precision, with the offset the store's zone has
// at that instant. This runs ~150 times per page and Intl is slow (~5 µs a call), so offsets are
// cached per zone and UTC day. A day whose first and last second share an offset is taken as
// uniform (no zone changes offset and back within one day); a day that differs is split into
// 15-minute buckets, since offsets in use since the 1970s change only on quarter-hour boundaries;
// a bucket that still differs (an older, odd transition) asks Intl for every instant.
const DAY_MS = 86_400_000;
const BUCKET_MS = 15 * 60 * 1000;
// Bound memory (zone names in odd letter case, times spread over centuries); refilling is cheap.
const MAX_ENTRIES = 50_000;
const MAX_ZONES = 1_000;
const MAX_DATE_MS = 8.64e15;
// The offset differs within the span: no single cached value.
const MIXED = Number.NaN;

interface ZoneState {
  readonly format: Intl.DateTimeFormat;
  readonly days: Map<number, number>;
  readonly buckets: Map<number, number>;
}

const zones = new Map<string, ZoneState>();
const offsetTexts = new Map<number, string>();

function zoneState(timeZone: string): ZoneState {
  let state = zones.get(timeZone);
  if (state === undefined) {
    const format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    state = { format, days: new Map(), buckets: new Map() };
    if (zones.size >= MAX_ZONES) zones.clear();
    zones.set(timeZone, state);
  }
  return state;
}

/** The zone's offset in whole seconds at instant `ms`, straight from Intl. */
function offsetSecondsAt(format: Intl.DateTimeFormat, ms: number): number {
  let year = 0;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let beforeCommonEra = false;
  for (const part of format.formatToParts(ms)) {
    switch (part.type) {
      case 'year':
        year = Number(part.value);
        break;
      case 'month':
        month = Number(part.value);
        break;
      case 'day':
        day = Number(part.value);
        break;
      case 'hour':
        hour = Number(part.value);
        break;
      case 'minute':
        minute = Number(part.value);
        break;
      case 'second':
        second = Number(part.value);
        break;
      case 'era':
        beforeCommonEra = part.value.startsWith('B');
        break;
      default:
        break;
    }
  }
  const local = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  local.setUTCFullYear(beforeCommonEra ? 1 - year : year, month - 1, day);
  local.setUTCHours(hour, minute, second, 0);
  const wholeSecondMs = Math.floor(ms / 1000) * 1000;
  return Math.round((local.getTime() - wholeSecondMs) / 1000);
}

/** The offset (seconds) shared by the first and last second of [start, start + span), or MIXED. */
function uniformOffset(format: Intl.DateTimeFormat, start: number, span: number): number {
  const atStart = offsetSecondsAt(format, start);
  const atEnd = offsetSecondsAt(format, Math.min(start + span - 1000, MAX_DATE_MS));
  return atStart === atEnd ? atStart : MIXED;
}

function cachedUniformOffset(state: ZoneState, cache: Map<number, number>, key: number, span: number): number {
  let value = cache.get(key);
  if (value === undefined) {
    value = uniformOffset(state.format, key * span, span);
    if (cache.size >= MAX_ENTRIES) cache.clear();
    cache.set(key, value);
  }
  return value;
}

function cachedOffsetSeconds(state: ZoneState, ms: number): number {
  const daily = cachedUniformOffset(state, state.days, Math.floor(ms / DAY_MS), DAY_MS);
  if (!Number.isNaN(daily)) return daily;
  const quarter = cachedUniformOffset(state, state.buckets, Math.floor(ms / BUCKET_MS), BUCKET_MS);
  return Number.isNaN(quarter) ? offsetSecondsAt(state.format, ms) : quarter;
}

function offsetText(minutes: number): string {
  let text = offsetTexts.get(minutes);
  if (text === undefined) {
    const abs = Math.abs(minutes);
    const hh = String(Math.floor(abs / 60)).padStart(2, '0');
    const mm = String(abs % 60).padStart(2, '0');
    text = `${minutes < 0 ? '-' : '+'}${hh}:${mm}`;
    offsetTexts.set(minutes, text);
  }
  return text;
}

const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
// `YYYY-MM-DDT` per local day number: Date's own formatting is slow (~1 µs) on the hot path.
const datePrefixes = new Map<number, string>();

function datePrefix(localDay: number): string {
  let prefix = datePrefixes.get(localDay);
  if (prefix === undefined) {
    const iso = new Date(localDay * DAY_MS).toISOString();
    prefix = iso.slice(0, iso.length - 'HH:MM:SS.sssZ'.length);
    if (datePrefixes.size >= MAX_ENTRIES) datePrefixes.clear();
    datePrefixes.set(localDay, prefix);
  }
  return prefix;
}

/**
 * `date` as ISO 8601 in `ianaTimezone`, second precision: `2026-11-22T12:05:01+08:00`.
 * Historical offsets with seconds (e.g. Liberia until 1972, -00:44:30) are rounded to the nearest
 * minute and the wall time shifted to match, so the text always denotes the exact instant.
 * Throws RangeError for an invalid date or zone (validate zones with `isValidTimeZone`).
 */
export function formatInZone(date: Date, ianaTimezone: string): string {
  const ms = date.getTime();
  if (Number.isNaN(ms)) throw new RangeError('formatInZone: invalid date');
  const state = zoneState(ianaTimezone);
  const seconds = cachedOffsetSeconds(state, ms);
  const minutes = seconds < 0 ? -Math.round(-seconds / 60) : Math.round(seconds / 60);
  const local = Math.floor(ms / 1000) * 1000 + minutes * 60_000;
  const localDay = Math.floor(local / DAY_MS);
  const secondOfDay = (local - localDay * DAY_MS) / 1000;
  const hh = Math.floor(secondOfDay / 3600);
  const mm = Math.floor((secondOfDay % 3600) / 60);
  const ss = secondOfDay % 60;
  return `${datePrefix(localDay)}${TWO_DIGITS[hh]}:${TWO_DIGITS[mm]}:${TWO_DIGITS[ss]}${offsetText(minutes)}`;
}

const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]*$/;

/** An IANA zone name Intl knows (`Asia/Shanghai`, `UTC`); offsets such as `+08:00` are not zones. */
export function isValidTimeZone(tz: string): boolean {
  if (typeof tz !== 'string' || tz.length > 64 || !ZONE_NAME.test(tz)) return false;
  try {
    // Not cached: this runs on user input, formatting runs on stored (validated) zones.
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

let zoneNames: Map<string, string> | undefined;

/**
 * A valid zone name in its usual spelling, so `utc` is stored as `UTC` and `asia/shanghai` as
 * `Asia/Shanghai` (nothing else is rewritten: `Asia/Kolkata` stays, although ICU calls it
 * `Asia/Calcutta`). Call after `isValidTimeZone`.
 */
export function canonicalTimeZone(tz: string): string {
  const lower = tz.toLowerCase();
  const resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  if (resolved.toLowerCase() === lower) return resolved;
  zoneNames ??= new Map(Intl.supportedValuesOf('timeZone').map((name) => [name.toLowerCase(), name]));
  return zoneNames.get(lower) ?? tz;
}
