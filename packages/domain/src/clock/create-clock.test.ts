import { describe, it, expect } from 'vitest';
import { DomainError } from '../errors/define-errors';
import { advanceInstant, createManualClock, manualInstant, systemClock } from './create-clock';

describe('systemClock', () => {
  it('returns a valid Date', () => {
    expect(Number.isNaN(systemClock.now().getTime())).toBe(false);
  });
});

describe('createManualClock', () => {
  it('reads the stored instant and stands still until it is moved', async () => {
    let stored = Date.parse('2027-01-01T00:00:00Z');
    const clock = createManualClock(() => stored);
    expect(clock.now().toISOString()).toBe('2027-01-01T00:00:00.000Z');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(clock.now().toISOString()).toBe('2027-01-01T00:00:00.000Z');
    stored = advanceInstant(stored, 300);
    expect(clock.now().toISOString()).toBe('2027-01-01T00:05:00.000Z');
  });
});

describe('manualInstant', () => {
  it('is the target itself', () => {
    expect(manualInstant(new Date('2027-01-01T00:00:00Z'))).toBe(Date.parse('2027-01-01T00:00:00Z'));
  });

  it('refuses an invalid target, and one outside the instants the platform stores', () => {
    expect(() => manualInstant(new Date(Number.NaN))).toThrow(DomainError);
    for (const target of ['1969-12-31T23:59:59Z', '9999-12-31T00:00:00Z', '0001-01-01T00:00:00Z']) {
      expect(() => manualInstant(new Date(target)), target).toThrow(/now: must be between 1970/);
    }
    expect(manualInstant(new Date('9999-12-30T23:59:59Z'))).toBe(Date.parse('9999-12-30T23:59:59Z'));
  });
});

describe('advanceInstant', () => {
  it('adds whole, fractional and negative seconds', () => {
    expect(advanceInstant(0, 3600)).toBe(3_600_000);
    expect(advanceInstant(1_000, 0.25)).toBe(1_250);
    expect(advanceInstant(3_000, -2)).toBe(1_000);
  });

  it('rejects non-finite amounts with a 422', () => {
    for (const seconds of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(() => advanceInstant(0, seconds)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', status: 422 }));
    }
  });

  it('rejects a move beyond what a Date can hold, or out of the instants the platform stores', () => {
    expect(() => advanceInstant(0, 1e13)).toThrow(DomainError);
    expect(() => advanceInstant(1_000, -2)).toThrow(/advance_seconds: moves the clock out of range/);
    expect(() => advanceInstant(Date.parse('9999-12-30T00:00:00Z'), 86_400)).toThrow(/out of range/);
  });
});
