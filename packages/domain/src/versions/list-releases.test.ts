import { describe, it, expect } from 'vitest';
import { isReleaseVersion, isWellFormedVersion, latestStableVersion, releaseDates, supportedVersions } from './list-releases';

const NOV_22_2026 = new Date('2026-11-22T10:00:00Z');

describe('isWellFormedVersion', () => {
  it('accepts v followed by a real calendar date', () => {
    expect(isWellFormedVersion('v20260901')).toBe(true);
    expect(isWellFormedVersion('v20240229')).toBe(true);
    expect(isWellFormedVersion('v20261115')).toBe(true);
  });

  it('rejects dates that do not exist', () => {
    expect(isWellFormedVersion('v20250229')).toBe(false);
    expect(isWellFormedVersion('v19000229')).toBe(false);
    expect(isWellFormedVersion('v20261301')).toBe(false);
    expect(isWellFormedVersion('v20260431')).toBe(false);
    expect(isWellFormedVersion('v20260900')).toBe(false);
  });

  it('rejects other shapes', () => {
    for (const v of ['20260901', 'V20260901', 'v2026-09-01', 'v2026091', 'v202609010', ' v20260901', 'v20260901 ', 'latest', '']) {
      expect(isWellFormedVersion(v), v).toBe(false);
    }
  });
});

describe('isReleaseVersion', () => {
  it('is true only for the 1st of March, June, September and December', () => {
    expect(['v20260301', 'v20260601', 'v20260901', 'v20261201'].every(isReleaseVersion)).toBe(true);
    expect(['v20260101', 'v20260902', 'v20260401', 'v20261301'].some(isReleaseVersion)).toBe(false);
  });
});

describe('supportedVersions', () => {
  it('lists the 8 newest released versions newest first (the decisions example)', () => {
    expect(supportedVersions(NOV_22_2026)).toEqual([
      'v20260901',
      'v20260601',
      'v20260301',
      'v20251201',
      'v20250901',
      'v20250601',
      'v20250301',
      'v20241201',
    ]);
  });

  it('releases a version at UTC midnight of its date, not before', () => {
    expect(supportedVersions(new Date('2026-08-31T23:59:59.999Z'))[0]).toBe('v20260601');
    expect(supportedVersions(new Date('2026-09-01T00:00:00.000Z'))[0]).toBe('v20260901');
  });

  it('uses the UTC date whatever the local offset of the instant', () => {
    // 2026-09-01T07:00+08:00 is still 31 August in UTC.
    expect(supportedVersions(new Date('2026-09-01T07:00:00+08:00'))[0]).toBe('v20260601');
  });

  it('rolls over the year in January and February', () => {
    expect(supportedVersions(new Date('2027-02-28T12:00:00Z')).slice(0, 2)).toEqual(['v20261201', 'v20260901']);
    expect(supportedVersions(new Date('2027-01-01T00:00:00Z'))[7]).toBe('v20250301');
  });
});

describe('latestStableVersion', () => {
  it('is the newest released version', () => {
    expect(latestStableVersion(NOV_22_2026)).toBe('v20260901');
    expect(latestStableVersion(new Date('2026-12-01T00:00:00Z'))).toBe('v20261201');
  });
});

describe('releaseDates', () => {
  it('returns UTC midnights three months apart, newest first', () => {
    expect(releaseDates(NOV_22_2026, 3).map((d) => d.toISOString())).toEqual([
      '2026-09-01T00:00:00.000Z',
      '2026-06-01T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
    ]);
  });

  it('refuses an invalid clock reading', () => {
    expect(() => releaseDates(new Date(Number.NaN))).toThrow(RangeError);
  });
});
