import { describe, expect, it } from 'vitest';
import { checkGrant, isRegisteredRedirect, SCOPE_WORDS } from './check-grant';
import { SCOPES } from './define-scopes';

const publicApp = { kind: 'public' as const, scopes: ['write_products', 'read_inventory'], storeId: null };

describe(checkGrant.name, () => {
  it('grants registered scopes, deduplicated, in the order asked', () => {
    expect(checkGrant(publicApp, 1n, 'read_inventory,write_products,read_inventory')).toEqual({
      ok: true,
      scopes: ['read_inventory', 'write_products'],
    });
    expect(checkGrant(publicApp, 1n, ['write_products'])).toEqual({ ok: true, scopes: ['write_products'] });
  });

  it('refuses a scope that is not a scope, and one the app did not register', () => {
    expect(checkGrant(publicApp, 1n, 'read_orders')).toMatchObject({ ok: false, reason: 'UNKNOWN_SCOPE' });
    const unregistered = checkGrant(publicApp, 1n, 'read_fulfillments,write_inventory');
    expect(unregistered).toMatchObject({ ok: false, reason: 'UNREGISTERED_SCOPE' });
    expect(!unregistered.ok && unregistered.message).toMatch(/^scope: read_fulfillments, write_inventory are not among/);
  });

  it('grants the read scope of a registered write scope (less than the app asked for)', () => {
    expect(checkGrant(publicApp, 1n, 'read_products')).toEqual({ ok: true, scopes: ['read_products'] });
  });

  it('refuses an empty grant and a private app', () => {
    expect(checkGrant(publicApp, 1n, ' , ')).toMatchObject({ ok: false, reason: 'NO_SCOPE' });
    expect(checkGrant({ ...publicApp, kind: 'private' }, 1n, 'write_products')).toMatchObject({ ok: false, reason: 'PRIVATE_APP' });
  });

  it('lets a custom app install on its own store only; an unbound one on any first store', () => {
    const custom = { ...publicApp, kind: 'custom' as const, storeId: 7n };
    expect(checkGrant(custom, 7n, 'write_products').ok).toBe(true);
    expect(checkGrant(custom, 8n, 'write_products')).toMatchObject({ ok: false, reason: 'OTHER_STORE' });
    expect(checkGrant({ ...custom, storeId: null }, 8n, 'write_products').ok).toBe(true);
    expect(checkGrant({ ...publicApp, storeId: 7n }, 8n, 'write_products').ok).toBe(true);
  });
});

describe(isRegisteredRedirect.name, () => {
  const registered = ['https://app.example.com/callback'];
  it('accepts only an exact match', () => {
    expect(isRegisteredRedirect('https://app.example.com/callback', registered)).toBe(true);
    for (const uri of [
      'https://app.example.com/callback/',
      'https://APP.example.com/callback',
      'https://app.example.com/callback?x=1',
      '',
      undefined,
      ['https://app.example.com/callback'],
    ]) {
      expect(isRegisteredRedirect(uri, registered)).toBe(false);
    }
  });
});

describe('SCOPE_WORDS', () => {
  it('says every scope in words', () => {
    for (const scope of SCOPES) expect(SCOPE_WORDS[scope]).toMatch(/^See /);
  });
});
