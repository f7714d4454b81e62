import { describe, it, expect } from 'vitest';
import { graceExpiry, reminderRetryDelayMs, tokenExpiresAt, TOKEN_GRACE_SECONDS } from './compute-token-expiry';

describe('tokenExpiresAt', () => {
  it('gives custom and public tokens 10 hours', () => {
    const issued = new Date('2026-11-22T20:30:15.250Z');
    expect(tokenExpiresAt('custom', issued).toISOString()).toBe('2026-11-23T06:30:15.250Z');
    expect(tokenExpiresAt('public', issued).toISOString()).toBe('2026-11-23T06:30:15.250Z');
  });

  it('gives private tokens 3 calendar years in UTC', () => {
    expect(tokenExpiresAt('private', new Date('2026-11-22T12:00:00Z')).toISOString()).toBe('2029-11-22T12:00:00.000Z');
  });

  it('moves a private token issued on 29 February to 28 February', () => {
    expect(tokenExpiresAt('private', new Date('2028-02-29T08:00:00Z')).toISOString()).toBe('2031-02-28T08:00:00.000Z');
  });

  it('refuses an invalid issue time', () => {
    expect(() => tokenExpiresAt('custom', new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('graceExpiry', () => {
  it('keeps the old token 5 more minutes', () => {
    expect(TOKEN_GRACE_SECONDS).toBe(300);
    const now = new Date('2026-11-22T12:00:00Z');
    expect(graceExpiry(now, new Date('2026-11-22T20:00:00Z')).toISOString()).toBe('2026-11-22T12:05:00.000Z');
  });

  it('never extends a token past its own expiry', () => {
    const now = new Date('2026-11-22T12:00:00Z');
    expect(graceExpiry(now, new Date('2026-11-22T12:02:00Z')).toISOString()).toBe('2026-11-22T12:02:00.000Z');
  });
});

describe(reminderRetryDelayMs.name, () => {
  it('waits 5 minutes after a first refusal, doubling, never more than a day', () => {
    expect([1, 2, 3].map(reminderRetryDelayMs)).toEqual([300_000, 600_000, 1_200_000]);
    expect(reminderRetryDelayMs(9)).toBe(76_800_000);
    expect(reminderRetryDelayMs(10)).toBe(86_400_000);
    expect(reminderRetryDelayMs(1000)).toBe(86_400_000);
  });
});
