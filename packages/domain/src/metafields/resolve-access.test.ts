import { describe, expect, it } from 'vitest';
import { appIdOfNamespace, expandAppNamespace, parseNamespace } from './parse-namespace';
import { effectiveAccess, resolveAccess, type AccessAction, type AccessCaller, type AccessTarget } from './resolve-access';
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

/** The outcome alone, and a refusal's reason as `forbidden:reserved_namespace`. */
const decided = (target: AccessTarget, caller: AccessCaller, action: AccessAction): string => {
  const decision = resolveAccess(target, caller, action);
  return decision.outcome === 'allowed' ? 'allowed' : `${decision.outcome}:${decision.reason}`;
};

describe('resolveAccess: only the owning app writes in its reserved namespace (decisions §8.2, §8.7)', () => {
  const inApp1 = (access: AccessAdmin | null) => ({ namespace: 'app--1--reviews', access, creatorAppId: '1' });

  it('another app writes nothing there, whatever the access: 403 for the reserved namespace where it may see, 404 where it may not', () => {
    for (const action of WRITES) {
      expect(decided(inApp1('NONE'), APP2, action), action).toBe('forbidden:reserved_namespace');
      // PUBLIC_READ alone refuses the write too, but the namespace is the reason given.
      expect(decided(inApp1('PUBLIC_READ'), APP2, action), action).toBe('forbidden:reserved_namespace');
      for (const hidden of [null, 'MERCHANT_READ_WRITE', 'MERCHANT_READ', 'PRIVATE'] as const) {
        expect(decided(inApp1(hidden), APP2, action), `${hidden} ${action}`).toBe('not_found:access');
      }
    }
  });

  it('other apps still read per the access', () => {
    for (const action of READS) {
      expect(decided(inApp1('NONE'), APP2, action)).toBe('allowed');
      expect(decided(inApp1('PUBLIC_READ'), APP2, action)).toBe('allowed');
      expect(decided(inApp1(null), APP2, action)).toBe('not_found:access');
    }
  });

  it('the owning app does everything; the merchant follows the table as before', () => {
    for (const access of [null, ...ACCESS_ADMIN_VALUES]) {
      for (const action of [...READS, ...WRITES]) expect(decided(inApp1(access), APP1, action)).toBe('allowed');
    }
    expect(decided(inApp1('NONE'), MERCHANT, 'write_values')).toBe('allowed');
    expect(decided(inApp1(null), MERCHANT, 'update')).toBe('allowed');
    expect(decided(inApp1('PRIVATE'), MERCHANT, 'view')).toBe('not_found:access');
    expect(decided(inApp1('MERCHANT_READ'), MERCHANT, 'update')).toBe('forbidden:access');
  });

  it('a value without a definition in an app namespace belongs to that app', () => {
    const orphan = { namespace: 'app--1--reviews', access: null, creatorAppId: null };
    expect(decided(orphan, APP1, 'write_values')).toBe('allowed');
    expect(decided(orphan, APP2, 'read_values')).toBe('not_found:access');
    expect(decided(orphan, APP2, 'write_values')).toBe('not_found:access');
  });

  it('use_namespace (create a definition, write a value by name) is decided by the namespace alone, whatever exists there', () => {
    for (const target of [
      inApp1(null),
      inApp1('PRIVATE'),
      inApp1('NONE'),
      { namespace: 'app--1--reviews', access: null, creatorAppId: null },
    ]) {
      expect(decided(target, APP2, 'use_namespace')).toBe('forbidden:reserved_namespace');
      expect(decided(target, APP1, 'use_namespace')).toBe('allowed');
      expect(decided(target, MERCHANT, 'use_namespace')).toBe('allowed');
    }
    expect(decided({ namespace: 'custom', access: 'PRIVATE', creatorAppId: '1' }, APP2, 'use_namespace')).toBe('allowed');
  });

  it('shared namespaces are unchanged: NONE lets other apps write, PUBLIC_READ does not (the access is the reason)', () => {
    const shared = (access: AccessAdmin | null) => ({ namespace: 'custom', access, creatorAppId: '1' });
    expect(decided(shared('NONE'), APP2, 'update')).toBe('allowed');
    expect(decided(shared(null), APP2, 'write_values')).toBe('allowed');
    expect(decided(shared('PUBLIC_READ'), APP2, 'write_values')).toBe('forbidden:access');
    expect(decided(shared('PRIVATE'), APP2, 'update')).toBe('not_found:access');
    expect(decided({ namespace: 'custom', access: null, creatorAppId: null }, APP2, 'write_values')).toBe('allowed');
  });
});
