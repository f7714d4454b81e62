import { describe, expect, it } from 'vitest';
import { deprecationNotice, versionStatus } from './versions';

describe(versionStatus.name, () => {
  it('gives a release 8 quarters in the window (decisions §2.2): v20241201 leaves it on 2026-12-01', () => {
    expect(versionStatus('v20241201', new Date('2026-11-22T00:00:00Z'))).toEqual({
      apiVersion: 'v20241201',
      retiresOn: '2026-12-01',
      daysLeft: 9,
      latest: 'v20260901',
      supported: true,
    });
  });

  it('refuses a version that is not a quarterly release', () => {
    expect(() => versionStatus('v20260215', new Date())).toThrow(/not a release/);
    expect(() => versionStatus('2026-09-01', new Date())).toThrow(/not a release/);
  });
});

describe(deprecationNotice.name, () => {
  const now = new Date('2026-11-22T00:00:00Z');

  it('warns when the pinned version leaves the window within 90 days', () => {
    expect(deprecationNotice('v20241201', now)).toEqual({
      retiresOn: '2026-12-01',
      message: 'API version v20241201 leaves the supported window on 2026-12-01 (in 9 days). Move to v20260901.',
    });
    // v20250301 leaves on 2027-03-01: 99 days away, no warning yet; 90 days before, one.
    expect(deprecationNotice('v20250301', now)).toBeUndefined();
    expect(deprecationNotice('v20250301', new Date('2026-12-01T00:00:00Z'))?.message).toMatch(/in 90 days/);
  });

  it('says a retired version is served by the oldest supported one (decisions §2.4)', () => {
    expect(deprecationNotice('v20240901', now)?.message).toMatch(/left the supported window on 2026-09-01/);
  });

  it('is quiet for the latest version', () => {
    expect(deprecationNotice('v20260901', now)).toBeUndefined();
  });
});
