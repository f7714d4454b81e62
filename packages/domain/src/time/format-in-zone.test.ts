import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { canonicalTimeZone, formatInZone, isValidTimeZone } from './format-in-zone';
import { parseIsoInstant } from './parse-instant';

const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/London',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'America/St_Johns',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Asia/Shanghai',
  'America/Sao_Paulo',
  'Pacific/Kiritimati',
];

const referenceFormats = new Map<string, Intl.DateTimeFormat>();

/** The expected text computed straight from Intl, with no caching: wall time parts + `longOffset`. */
function reference(ms: number, timeZone: string): string {
  let format = referenceFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    });
    referenceFormats.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(ms).map((p) => [p.type, p.value]));
  const zoneName = parts['timeZoneName'] ?? '';
  const offset = zoneName === 'GMT' ? '+00:00' : zoneName.replace('GMT', '');
  return `${parts['year']}-${parts['month']}-${parts['day']}T${parts['hour']}:${parts['minute']}:${parts['second']}${offset}`;
}

const MS_1970 = Date.UTC(1970, 0, 1);
const MS_2100 = Date.UTC(2100, 0, 1);

describe('formatInZone', () => {
  it('formats with the zone offset at second precision', () => {
    expect(formatInZone(new Date('2026-11-22T04:05:01.987Z'), 'Asia/Shanghai')).toBe('2026-11-22T12:05:01+08:00');
    expect(formatInZone(new Date('2026-11-22T04:05:01Z'), 'UTC')).toBe('2026-11-22T04:05:01+00:00');
  });

  it('follows daylight saving time in New York and London', () => {
    expect(formatInZone(new Date('2026-07-01T16:00:00Z'), 'America/New_York')).toBe('2026-07-01T12:00:00-04:00');
    expect(formatInZone(new Date('2026-12-01T17:00:00Z'), 'America/New_York')).toBe('2026-12-01T12:00:00-05:00');
    expect(formatInZone(new Date('2026-07-01T11:00:00Z'), 'Europe/London')).toBe('2026-07-01T12:00:00+01:00');
    expect(formatInZone(new Date('2026-12-01T12:00:00Z'), 'Europe/London')).toBe('2026-12-01T12:00:00+00:00');
  });

  it('switches offset exactly at a transition instant', () => {
    // New York springs forward at 2026-03-08 07:00 UTC and falls back at 2026-11-01 06:00 UTC.
    expect(formatInZone(new Date('2026-03-08T06:59:59Z'), 'America/New_York')).toBe('2026-03-08T01:59:59-05:00');
    expect(formatInZone(new Date('2026-03-08T07:00:00Z'), 'America/New_York')).toBe('2026-03-08T03:00:00-04:00');
    expect(formatInZone(new Date('2026-11-01T05:59:59Z'), 'America/New_York')).toBe('2026-11-01T01:59:59-04:00');
    expect(formatInZone(new Date('2026-11-01T06:00:00Z'), 'America/New_York')).toBe('2026-11-01T01:00:00-05:00');
  });

  it('handles half-hour and 45-minute offsets, including negative ones', () => {
    expect(formatInZone(new Date('2026-11-22T00:00:00Z'), 'Asia/Kolkata')).toBe('2026-11-22T05:30:00+05:30');
    expect(formatInZone(new Date('2026-11-22T00:00:00Z'), 'Asia/Kathmandu')).toBe('2026-11-22T05:45:00+05:45');
    expect(formatInZone(new Date('2026-11-22T12:00:00Z'), 'America/St_Johns')).toBe('2026-11-22T08:30:00-03:30');
    expect(formatInZone(new Date('2026-07-01T12:00:00Z'), 'America/St_Johns')).toBe('2026-07-01T09:30:00-02:30');
  });

  it('truncates to the second rather than rounding', () => {
    expect(formatInZone(new Date('2026-11-22T23:59:59.999Z'), 'UTC')).toBe('2026-11-22T23:59:59+00:00');
    expect(formatInZone(new Date(-1), 'UTC')).toBe('1969-12-31T23:59:59+00:00');
  });

  it('rounds a historical offset with seconds to the minute and keeps the instant exact', () => {
    // Liberia kept -00:44:30 until 1972-01-07 00:44:30 UTC.
    const before = new Date('1971-06-01T12:00:00Z');
    const text = formatInZone(before, 'Africa/Monrovia');
    expect(text).toBe('1971-06-01T11:15:00-00:45');
    const parsed = parseIsoInstant(text);
    expect(parsed.ok && parsed.value.getTime()).toBe(before.getTime());
    expect(formatInZone(new Date('1972-01-07T00:44:31Z'), 'Africa/Monrovia')).toBe('1972-01-07T00:44:31+00:00');
  });

  it('agrees with Intl for random instants between 1970 and 2100', () => {
    fc.assert(
      fc.property(fc.integer({ min: MS_1970, max: MS_2100 }), fc.constantFrom(...ZONES), (ms, zone) => {
        expect(formatInZone(new Date(ms), zone)).toBe(reference(ms, zone));
      }),
      { numRuns: 5000 },
    );
  });

  it('agrees with Intl at random seconds around transitions of random years', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1970, max: 2099 }),
        fc.constantFrom('America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Pacific/Chatham'),
        fc.integer({ min: -1800, max: 1800 }),
        (year, zone, deltaSeconds) => {
          // Transition instants of these zones in UTC fall on the hour or half hour of these days.
          const candidates = [Date.UTC(year, 2, 8, 7), Date.UTC(year, 9, 27, 1), Date.UTC(year, 3, 5, 15, 30), Date.UTC(year, 8, 26, 14)];
          for (const base of candidates) {
            const ms = base + deltaSeconds * 1000;
            expect(formatInZone(new Date(ms), zone)).toBe(reference(ms, zone));
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('produces text that parses back to the same instant, truncated to the second', () => {
    fc.assert(
      fc.property(fc.integer({ min: MS_1970, max: MS_2100 }), fc.constantFrom(...ZONES), (ms, zone) => {
        const parsed = parseIsoInstant(formatInZone(new Date(ms), zone));
        expect(parsed).toEqual({ ok: true, value: new Date(Math.floor(ms / 1000) * 1000) });
      }),
      { numRuns: 2000 },
    );
  });

  it('throws on an invalid date or zone', () => {
    expect(() => formatInZone(new Date(Number.NaN), 'UTC')).toThrow(RangeError);
    expect(() => formatInZone(new Date(), 'Mars/Olympus_Mons')).toThrow(RangeError);
  });
});

describe('isValidTimeZone', () => {
  it('accepts IANA zone names', () => {
    for (const tz of ['UTC', 'Asia/Shanghai', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5', 'America/Port-au-Prince']) {
      expect(isValidTimeZone(tz), tz).toBe(true);
    }
  });

  it('rejects unknown names, offsets and junk', () => {
    for (const tz of ['', 'Mars/Olympus_Mons', '+08:00', 'GMT+8 ', ' UTC', 'Asia/Shanghai\n', '../etc/passwd']) {
      expect(isValidTimeZone(tz), JSON.stringify(tz)).toBe(false);
    }
  });
});

describe('canonicalTimeZone', () => {
  it('spells a zone as IANA does, whatever case it was given in', () => {
    expect(canonicalTimeZone('utc')).toBe('UTC');
    expect(canonicalTimeZone('asia/shanghai')).toBe('Asia/Shanghai');
    expect(canonicalTimeZone('America/New_York')).toBe('America/New_York');
  });

  it('keeps a correctly spelled alias as given', () => {
    expect(canonicalTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata');
  });
});
