import { describe, it, expect } from 'vitest';
import { DomainError } from '../errors/define-errors';
import { createOffsetClock, offsetAfterAdvance, offsetForTarget, systemClock } from './create-clock';

describe('systemClock', () => {
  it('returns a valid Date', () => {
    expect(Number.isNaN(systemClock.now().getTime())).toBe(false);
  });
});

describe('createOffsetClock', () => {
  it('reads real time plus the current offset, and keeps ticking with real time', () => {
    let real = 1_000_000;
    let offset = 5_000;
    const clock = createOffsetClock(
      () => offset,
      () => real,
    );
    expect(clock.now().getTime()).toBe(1_005_000);
    real += 2_500;
    expect(clock.now().getTime()).toBe(1_007_500);
    offset = -1_000;
    expect(clock.now().getTime()).toBe(1_001_500);
  });
});

describe('offsetForTarget', () => {
  it('makes the clock read the target at that real time', () => {
    const target = new Date('2027-01-01T00:00:00Z');
    const real = Date.parse('2026-11-22T10:00:00Z');
    const offset = offsetForTarget(target, real);
    const clock = createOffsetClock(
      () => offset,
      () => real,
    );
    expect(clock.now().toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('refuses an invalid target', () => {
    expect(() => offsetForTarget(new Date(Number.NaN), 0)).toThrow(DomainError);
  });
});

describe('offsetAfterAdvance', () => {
  it('adds whole, fractional and negative seconds', () => {
    expect(offsetAfterAdvance(0, 3600)).toBe(3_600_000);
    expect(offsetAfterAdvance(1_000, 0.25)).toBe(1_250);
    expect(offsetAfterAdvance(1_000, -2)).toBe(-1_000);
  });

  it('rejects non-finite amounts with a 422', () => {
    for (const seconds of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(() => offsetAfterAdvance(0, seconds)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', status: 422 }));
    }
  });

  it('rejects a move beyond what a Date can hold', () => {
    expect(() => offsetAfterAdvance(0, 1e13)).toThrow(DomainError);
  });
});
