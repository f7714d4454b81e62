import { describe, expect, it } from 'vitest';
import { appIdOfNamespace, expandAppNamespace, parseNamespace } from './parse-namespace';
import { effectiveAccess, resolveAccess, type AccessCaller } from './resolve-access';
import type { DefinitionAction } from './resolve-permissions';
import { ACCESS_ADMIN_VALUES, type AccessAdmin } from './validate-definition';

describe('app namespaces (decisions §8.2)', () => {
  it('store $app:x as app--{app_id}--x', () => {
    expect(expandAppNamespace('$app:reviews', '12')).toBe('app--12--reviews');
    expect(expandAppNamespace('custom', '12')).toBe('custom');
    expect(appIdOfNamespace('app--12--reviews')).toBe('12');
    expect(appIdOfNamespace('custom')).toBeNull();
    expect(appIdOfNamespace('app--x--reviews')).toBeNull();
  });

  it('reads both spellings as the same app namespace x', () => {
    expect(parseNamespace('$app:reviews')).toEqual({ kind: 'app', appId: null, name: 'reviews' });
    expect(parseNamespace('app--12--reviews')).toEqual({ kind: 'app', appId: '12', name: 'reviews' });
    expect(parseNamespace('app--12--')).toEqual({ kind: 'app', appId: '12', name: '' });
    expect(parseNamespace('app--12--app--3--x')).toEqual({ kind: 'app', appId: '12', name: 'app--3--x' });
    expect(parseNamespace('custom')).toEqual({ kind: 'shared', name: 'custom' });
    expect(parseNamespace('app--x--reviews')).toEqual({ kind: 'shared', name: 'app--x--reviews' });
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

const APP1: AccessCaller = { kind: 'app', appId: '1' };
const APP2: AccessCaller = { kind: 'app', appId: '2' };
const MERCHANT: AccessCaller = { kind: 'merchant' };
const WRITES: DefinitionAction[] = ['update', 'delete', 'write_values'];
const READS: DefinitionAction[] = ['view', 'read_values'];

describe('resolveAccess: only the owning app writes in its reserved namespace (decisions §8.2, §8.7)', () => {
  const inApp1 = (access: AccessAdmin | null) => ({ namespace: 'app--1--reviews', access, creatorAppId: '1' });

  it('another app writes nothing there, whatever the access: 403 where it may see, 404 where it may not', () => {
    for (const action of WRITES) {
      expect(resolveAccess(inApp1('NONE'), APP2, action), action).toBe('forbidden');
      expect(resolveAccess(inApp1('PUBLIC_READ'), APP2, action), action).toBe('forbidden');
      for (const hidden of [null, 'MERCHANT_READ_WRITE', 'MERCHANT_READ', 'PRIVATE'] as const) {
        expect(resolveAccess(inApp1(hidden), APP2, action), `${hidden} ${action}`).toBe('not_found');
      }
    }
  });

  it('other apps still read per the access', () => {
    for (const action of READS) {
      expect(resolveAccess(inApp1('NONE'), APP2, action)).toBe('allowed');
      expect(resolveAccess(inApp1('PUBLIC_READ'), APP2, action)).toBe('allowed');
      expect(resolveAccess(inApp1(null), APP2, action)).toBe('not_found');
    }
  });

  it('the owning app does everything; the merchant follows the table as before', () => {
    for (const access of [null, ...ACCESS_ADMIN_VALUES]) {
      for (const action of [...READS, ...WRITES]) expect(resolveAccess(inApp1(access), APP1, action)).toBe('allowed');
    }
    expect(resolveAccess(inApp1('NONE'), MERCHANT, 'write_values')).toBe('allowed');
    expect(resolveAccess(inApp1(null), MERCHANT, 'update')).toBe('allowed');
    expect(resolveAccess(inApp1('PRIVATE'), MERCHANT, 'view')).toBe('not_found');
  });

  it('a value without a definition in an app namespace belongs to that app', () => {
    const orphan = { namespace: 'app--1--reviews', access: null, creatorAppId: null };
    expect(resolveAccess(orphan, APP1, 'write_values')).toBe('allowed');
    expect(resolveAccess(orphan, APP2, 'read_values')).toBe('not_found');
    expect(resolveAccess(orphan, APP2, 'write_values')).toBe('not_found');
  });

  it('shared namespaces are unchanged: NONE lets other apps write, PUBLIC_READ does not', () => {
    const shared = (access: AccessAdmin | null) => ({ namespace: 'custom', access, creatorAppId: '1' });
    expect(resolveAccess(shared('NONE'), APP2, 'update')).toBe('allowed');
    expect(resolveAccess(shared(null), APP2, 'write_values')).toBe('allowed');
    expect(resolveAccess(shared('PUBLIC_READ'), APP2, 'write_values')).toBe('forbidden');
    expect(resolveAccess({ namespace: 'custom', access: null, creatorAppId: null }, APP2, 'write_values')).toBe('allowed');
  });
});
