import { describe, it, expect } from 'vitest';
import { parseIsoInstant } from './parse-instant';

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
