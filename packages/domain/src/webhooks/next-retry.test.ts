import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_DELIVERY_ATTEMPTS,
  MAX_RETRY_AFTER_MS,
  MIN_RETRY_AFTER_MS,
  nextRetryDelayMs,
  parseRetryAfter,
  RETRY_WAITS_MS,
} from './next-retry';

describe('nextRetryDelayMs (decisions §11.5)', () => {
  it('waits 10 s, 30 s, 1 min, 5 min, 15 min, 30 min, 1 h, 2 h after attempts 1..8 (no jitter at random 0.5)', () => {
    const waits = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => nextRetryDelayMs(n, 0.5));
    expect(waits).toEqual([10_000, 30_000, 60_000, 300_000, 900_000, 1_800_000, 3_600_000, 7_200_000]);
  });

  it('gives up after the ninth attempt (the first plus eight retries)', () => {
    expect(MAX_DELIVERY_ATTEMPTS).toBe(9);
    expect(nextRetryDelayMs(9, 0.5)).toBeUndefined();
    expect(nextRetryDelayMs(12, 0.5)).toBeUndefined();
  });

  it('keeps every wait within +/-20 % of the schedule', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (n, r) => {
        const wait = nextRetryDelayMs(n, r)!;
        const nominal = RETRY_WAITS_MS[n - 1]!;
        return wait >= Math.floor(nominal * 0.8) && wait <= Math.ceil(nominal * 1.2);
      }),
    );
    expect(nextRetryDelayMs(1, 0)).toBe(8_000);
    expect(nextRetryDelayMs(1, 0.999999)).toBe(12_000);
  });

  it('lets Retry-After replace the wait, at least 10 seconds and at most 2 hours', () => {
    expect(nextRetryDelayMs(1, 0.5, 120_000)).toBe(120_000);
    expect(nextRetryDelayMs(3, 0.5, 10 * 3600_000)).toBe(MAX_RETRY_AFTER_MS);
    expect(nextRetryDelayMs(5, 0.5, 15_000)).toBe(15_000);
  });

  it('never waits less than 10 seconds for a Retry-After of 0 or a date in the past (decisions §11.5)', () => {
    expect(MIN_RETRY_AFTER_MS).toBe(10_000);
    expect(nextRetryDelayMs(8, 0.5, 0)).toBe(MIN_RETRY_AFTER_MS);
    expect(nextRetryDelayMs(1, 0.5, 9_999)).toBe(MIN_RETRY_AFTER_MS);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.double({ min: 0, max: 1e12, noNaN: true }), (n, ms) => {
        const wait = nextRetryDelayMs(n, 0.5, ms)!;
        return wait >= MIN_RETRY_AFTER_MS && wait <= MAX_RETRY_AFTER_MS;
      }),
    );
  });

  it('ignores Retry-After on the last attempt: the delivery fails', () => {
    expect(nextRetryDelayMs(9, 0.5, 1000)).toBeUndefined();
  });

  it('refuses an attempt number that is not a positive integer', () => {
    expect(() => nextRetryDelayMs(0, 0.5)).toThrow(RangeError);
    expect(() => nextRetryDelayMs(1.5, 0.5)).toThrow(RangeError);
  });
});

describe('parseRetryAfter', () => {
  const now = new Date('2026-11-22T12:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter(['30', '40'], now)).toBe(30_000);
  });

  it('reads an HTTP date relative to now, a past date as 0', () => {
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:05:00 GMT', now)).toBe(300_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores what is neither', () => {
    for (const bad of ['', '-5', '1.5', 'soon', '2026-11-22T12:05:00Z', 'Sunday, 22-Nov-26 12:05:00 GMT', undefined]) {
      expect(parseRetryAfter(bad, now)).toBeUndefined();
    }
  });

  it('keeps an absurd number of seconds finite (capped later)', () => {
    const ms = parseRetryAfter('9'.repeat(40), now)!;
    expect(Number.isFinite(ms)).toBe(true);
    expect(nextRetryDelayMs(1, 0.5, ms)).toBe(MAX_RETRY_AFTER_MS);
  });
});
