import { describe, expect, it } from 'vitest';
import { merchantDefinitionIssues } from './check-merchant-definition';
import { resolveAccess } from './resolve-access';

describe('merchantDefinitionIssues (docs/decisions.md, Merchant admin)', () => {
  it("refuses an app's reserved namespace in either spelling, and keeps a shared one", () => {
    expect(merchantDefinitionIssues({ namespace: '$app:reviews' }).map((i) => i.field)).toEqual(['namespace']);
    expect(merchantDefinitionIssues({ namespace: 'app--3--reviews' }).map((i) => i.field)).toEqual(['namespace']);
    expect(merchantDefinitionIssues({ namespace: 'custom' })).toEqual([]);
  });

  it('refuses PRIVATE and MERCHANT_READ, which would take the definition away from its maker', () => {
    for (const admin of ['PRIVATE', 'MERCHANT_READ']) {
      expect(merchantDefinitionIssues({ namespace: 'custom', access: { admin } })[0]?.message).toMatch(
        /^access\.admin: .* choose NONE, PUBLIC_READ, MERCHANT_READ_WRITE$/,
      );
    }
    for (const admin of ['NONE', 'PUBLIC_READ', 'MERCHANT_READ_WRITE'])
      expect(merchantDefinitionIssues({ namespace: 'custom', access: { admin } })).toEqual([]);
  });
});

describe('resolveAccess on a definition the merchant made', () => {
  const made = (access: 'NONE' | 'PUBLIC_READ' | 'MERCHANT_READ_WRITE') => ({
    namespace: 'custom',
    access,
    creatorAppId: null,
    merchantMade: true,
  });

  it('lets the merchant do everything, and other apps what the access says', () => {
    for (const action of ['view', 'update', 'delete', 'write_values'] as const) {
      expect(resolveAccess(made('MERCHANT_READ_WRITE'), { kind: 'merchant' }, action).outcome).toBe('allowed');
    }
    expect(resolveAccess(made('MERCHANT_READ_WRITE'), { kind: 'app', appId: '1' }, 'view').outcome).toBe('not_found');
    expect(resolveAccess(made('PUBLIC_READ'), { kind: 'app', appId: '1' }, 'read_values').outcome).toBe('allowed');
    expect(resolveAccess(made('PUBLIC_READ'), { kind: 'app', appId: '1' }, 'write_values').outcome).toBe('forbidden');
    expect(resolveAccess(made('NONE'), { kind: 'app', appId: '1' }, 'delete').outcome).toBe('allowed');
  });
});
