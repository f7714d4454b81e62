import { describe, it, expect } from 'vitest';
import { EMPTY_VALUE_FORBIDDEN_FROM, isEmptyValueForbidden, versionAtLeast } from './compare-version';

describe('versionAtLeast', () => {
  it('compares versions by date', () => {
    expect(versionAtLeast('v20260901', 'v20260901')).toBe(true);
    expect(versionAtLeast('v20261201', 'v20260901')).toBe(true);
    expect(versionAtLeast('v20260601', 'v20260901')).toBe(false);
    expect(versionAtLeast('v20270101', 'v20261231')).toBe(true);
  });

  it('throws on a malformed version rather than guessing', () => {
    expect(() => versionAtLeast('2026-09-01', 'v20260901')).toThrow(RangeError);
    expect(() => versionAtLeast('v20260901', 'latest')).toThrow(RangeError);
  });
});

describe('isEmptyValueForbidden', () => {
  it('forbids empty metafield values from v20260901 on', () => {
    expect(EMPTY_VALUE_FORBIDDEN_FROM).toBe('v20260901');
    expect(isEmptyValueForbidden('v20260901')).toBe(true);
    expect(isEmptyValueForbidden('v20261201')).toBe(true);
  });

  it('allows them in earlier versions', () => {
    expect(isEmptyValueForbidden('v20260601')).toBe(false);
    expect(isEmptyValueForbidden('v20241201')).toBe(false);
  });
});
