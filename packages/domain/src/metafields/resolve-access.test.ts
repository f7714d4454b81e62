import { describe, expect, it } from 'vitest';
import { appIdOfNamespace, effectiveAccess, expandAppNamespace } from './resolve-access';

describe('app namespaces (decisions §8.2)', () => {
  it('store $app:x as app--{app_id}--x', () => {
    expect(expandAppNamespace('$app:reviews', '12')).toBe('app--12--reviews');
    expect(expandAppNamespace('custom', '12')).toBe('custom');
    expect(appIdOfNamespace('app--12--reviews')).toBe('12');
    expect(appIdOfNamespace('custom')).toBeNull();
    expect(appIdOfNamespace('app--x--reviews')).toBeNull();
  });
});

describe('unset access (decisions §8.7)', () => {
  it('behaves as NONE, or MERCHANT_READ_WRITE in an app namespace', () => {
    expect(effectiveAccess({ access: null, namespace: 'custom' })).toBe('NONE');
    expect(effectiveAccess({ access: null, namespace: '$app:reviews' })).toBe('MERCHANT_READ_WRITE');
    expect(effectiveAccess({ access: null, namespace: 'app--12--reviews' })).toBe('MERCHANT_READ_WRITE');
    expect(effectiveAccess({ access: { admin: 'PRIVATE' }, namespace: 'app--12--reviews' })).toBe('PRIVATE');
  });
});
