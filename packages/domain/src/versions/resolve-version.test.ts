import { describe, it, expect } from 'vitest';
import { resolveVersion } from './resolve-version';

const NOW = new Date('2026-11-22T10:00:00Z');
const NOT_SUPPORTED_TAIL =
  'is not supported. Supported versions: v20260901, v20260601, v20260301, v20251201, v20250901, v20250601, v20250301, v20241201';

describe('resolveVersion', () => {
  it('serves a supported version as requested', () => {
    expect(resolveVersion('v20260301', NOW)).toEqual({ ok: true, requested: 'v20260301', served: 'v20260301' });
    expect(resolveVersion('v20241201', NOW)).toEqual({ ok: true, requested: 'v20241201', served: 'v20241201' });
  });

  it('serves a retired version with the oldest supported one', () => {
    expect(resolveVersion('v20240901', NOW)).toEqual({ ok: true, requested: 'v20240901', served: 'v20241201' });
    expect(resolveVersion('v20200115', NOW)).toEqual({ ok: true, requested: 'v20200115', served: 'v20241201' });
  });

  it('refuses a malformed version, listing the supported ones newest first', () => {
    expect(resolveVersion('latest', NOW)).toEqual({ ok: false, message: `API version 'latest' ${NOT_SUPPORTED_TAIL}` });
    expect(resolveVersion('v20250230', NOW)).toEqual({ ok: false, message: `API version 'v20250230' ${NOT_SUPPORTED_TAIL}` });
  });

  it('refuses a version not yet released', () => {
    expect(resolveVersion('v20261201', NOW)).toEqual({ ok: false, message: `API version 'v20261201' ${NOT_SUPPORTED_TAIL}` });
    expect(resolveVersion('v20270301', NOW).ok).toBe(false);
  });

  it('refuses a date inside the window that is not a release', () => {
    expect(resolveVersion('v20260815', NOW).ok).toBe(false);
    expect(resolveVersion('v20261120', NOW).ok).toBe(false);
    expect(resolveVersion('v20241202', NOW).ok).toBe(false);
  });

  it('starts serving a release the moment the clock reaches its date', () => {
    expect(resolveVersion('v20261201', new Date('2026-11-30T23:59:59Z')).ok).toBe(false);
    expect(resolveVersion('v20261201', new Date('2026-12-01T00:00:00Z'))).toEqual({
      ok: true,
      requested: 'v20261201',
      served: 'v20261201',
    });
  });

  it('retires the oldest version when a new one is released', () => {
    expect(resolveVersion('v20241201', new Date('2026-12-01T00:00:00Z'))).toEqual({
      ok: true,
      requested: 'v20241201',
      served: 'v20250301',
    });
  });
});
