import { describe, it, expect } from 'vitest';
import { formatInZone } from './format-in-zone';
import { OUT_OF_STORED_RANGE, OUT_OF_STORED_RANGE_DATES, parseIsoInstant, parseStoredInstant } from './parse-instant';

function instant(s: string): string | undefined {
  const r = parseIsoInstant(s);
  return r.ok ? r.value.toISOString() : undefined;
}

describe('parseIsoInstant', () => {
  it('accepts a date and time with an offset or Z', () => {
    expect(instant('2026-11-22T12:05:01+08:00')).toBe('2026-11-22T04:05:01.000Z');
    expect(instant('2026-11-22T04:05:01.123Z')).toBe('2026-11-22T04:05:01.123Z');
    expect(instant('2026-11-22T00:05:01-03:30')).toBe('2026-11-22T03:35:01.000Z');
  });

  it('accepts a fraction of up to 9 digits after a dot', () => {
    expect(instant('2026-11-22T04:05:01.5Z')).toBe('2026-11-22T04:05:01.500Z');
    expect(instant('2026-11-22T04:05:01.123456789Z')).toBe('2026-11-22T04:05:01.123Z');
  });

  it('refuses the other ISO 8601 spellings, which a client reading the echo back may not parse (issue 14)', () => {
    for (const s of [
      '2026-11-25T10:00+08',
      '2026-11-22T12:05:01+0800',
      '2026-11-22T12:05:01+08',
      '2026-11-22T12:05+08:00',
      '2026-11-22T04:05:01,5Z',
      '2026-11-22t04:05:01z',
      '2026-11-22T04:05:01.Z',
      '2026-11-22T04:05:01.1234567890Z',
    ]) {
      expect(parseIsoInstant(s).ok, s).toBe(false);
    }
  });

  it('rejects a date alone or a time without offset', () => {
    for (const s of ['2026-11-22', '2026-11-22T12:05:01', '2026-11-22 12:05:01+08:00', '20261122T120501Z']) {
      const r = parseIsoInstant(s);
      expect(r.ok, s).toBe(false);
    }
  });

  it('rejects impossible calendar and clock values', () => {
    for (const s of [
      '2025-02-29T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-11-22T24:00:00Z',
      '2026-11-22T12:60:00Z',
      '2026-11-22T12:00:60Z',
      '2026-11-22T12:00:00+24:00',
      '2026-11-22T12:00:00+08:60',
    ]) {
      expect(parseIsoInstant(s), s).toEqual({ ok: false, message: 'is not a valid date and time' });
    }
  });

  it('accepts 29 February of a leap year', () => {
    expect(instant('2024-02-29T23:00:00-01:00')).toBe('2024-03-01T00:00:00.000Z');
  });

  it('explains the expected form without naming a field', () => {
    expect(parseIsoInstant('yesterday')).toEqual({
      ok: false,
      message: 'must be an ISO 8601 date and time with an offset or Z (e.g. 2026-11-22T12:05:01+08:00)',
    });
  });
});

describe(parseStoredInstant.name, () => {
  it('takes 1970-01-01T00:00:00Z to 9999-12-30T23:59:59Z and refuses what lies outside, whatever the offset', () => {
    for (const ok of ['1970-01-01T00:00:00Z', '1970-01-01T05:00:00+05:00', '9999-12-30T23:59:59Z', '2026-11-22T12:05:01+08:00']) {
      expect(parseStoredInstant(ok).ok, ok).toBe(true);
    }
    for (const out of ['0000-01-01T00:00:00Z', '1969-12-31T23:59:59Z', '1970-01-01T00:00:00+00:01', '9999-12-30T23:59:59-00:01']) {
      expect(parseStoredInstant(out), out).toEqual({ ok: false, message: OUT_OF_STORED_RANGE });
    }
    expect(parseStoredInstant('2026-02-30T00:00:00Z').ok).toBe(false);
  });

  it("agrees with the document's dates: any offset on a date the pattern leaves is stored, and renders with four digits in every zone", () => {
    const offsets = ['-23:59', '-12:00', 'Z', '+14:00', '+23:59'];
    for (const date of ['1970-01-02T00:00:00', '1970-01-02T23:59:59', '9999-12-29T00:00:00', '9999-12-29T23:59:59']) {
      expect(OUT_OF_STORED_RANGE_DATES.test(date)).toBe(false);
      for (const offset of offsets) {
        const parsed = parseStoredInstant(`${date}${offset}`);
        expect(parsed.ok, `${date}${offset}`).toBe(true);
        if (!parsed.ok) continue;
        for (const zone of ['Pacific/Kiritimati', 'Etc/GMT+12', 'UTC']) expect(formatInZone(parsed.value, zone)).toMatch(/^\d{4}-/);
      }
    }
    for (const date of ['0999-06-01T', '1969-12-31T', '1970-01-01T', '9999-12-30T', '9999-12-31T']) {
      expect(OUT_OF_STORED_RANGE_DATES.test(date), date).toBe(true);
    }
  });
});
