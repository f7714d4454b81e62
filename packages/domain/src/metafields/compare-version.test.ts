import { describe, expect, it } from 'vitest';
import { NON_EMPTY_VALUE_SINCE, rejectsEmptyValue } from './compare-version';

describe('rejectsEmptyValue (decisions §2.6)', () => {
  it('starts at v20260901', () => {
    expect(NON_EMPTY_VALUE_SINCE).toBe('v20260901');
    expect(rejectsEmptyValue('v20260901')).toBe(true);
    expect(rejectsEmptyValue('v20261201')).toBe(true);
    expect(rejectsEmptyValue('v20270301')).toBe(true);
  });
  it('does not apply to earlier versions', () => {
    expect(rejectsEmptyValue('v20260601')).toBe(false);
    expect(rejectsEmptyValue('v20260831')).toBe(false);
    expect(rejectsEmptyValue('v20241201')).toBe(false);
  });
});
