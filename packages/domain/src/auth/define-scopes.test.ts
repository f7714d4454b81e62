import { describe, it, expect } from 'vitest';
import { expandScopes, hasScope, isScope, minimalScopeString, parseScopeList, SCOPES } from './define-scopes';

describe('SCOPES', () => {
  it('lists the nine scopes of decisions §5.5', () => {
    expect([...SCOPES].sort()).toEqual([
      'read_fulfillments',
      'read_inventory',
      'read_metafields',
      'read_products',
      'read_store_information',
      'write_fulfillments',
      'write_inventory',
      'write_metafields',
      'write_products',
    ]);
  });
});

describe('isScope', () => {
  it('accepts known scope names only', () => {
    expect(isScope('write_metafields')).toBe(true);
    expect(isScope('write_store_information')).toBe(false);
    expect(isScope('READ_PRODUCTS')).toBe(false);
    expect(isScope(1)).toBe(false);
  });
});

describe('expandScopes', () => {
  it('adds the read scope each write scope implies and drops unknown names', () => {
    expect(expandScopes(['write_products', 'read_inventory', 'bogus'])).toEqual(
      new Set(['write_products', 'read_products', 'read_inventory']),
    );
  });
});

describe('hasScope', () => {
  it('grants a read scope through its write scope', () => {
    expect(hasScope(['write_metafields'], 'read_metafields')).toBe(true);
  });

  it('does not grant a write scope through its read scope, or across resources', () => {
    expect(hasScope(['read_products'], 'write_products')).toBe(false);
    expect(hasScope(['write_products'], 'read_inventory')).toBe(false);
    expect(hasScope([], 'read_store_information')).toBe(false);
  });
});

describe('parseScopeList', () => {
  it('accepts a comma-separated string, trimming and dropping empty entries', () => {
    expect(parseScopeList(' read_products, write_inventory ,,')).toEqual({ ok: true, value: ['read_products', 'write_inventory'] });
  });

  it('accepts an array of names and removes duplicates in first-seen order', () => {
    expect(parseScopeList(['write_products', 'read_products', 'write_products'])).toEqual({
      ok: true,
      value: ['write_products', 'read_products'],
    });
  });

  it('accepts an empty list', () => {
    expect(parseScopeList([])).toEqual({ ok: true, value: [] });
    expect(parseScopeList('')).toEqual({ ok: true, value: [] });
  });

  it('names the unknown scopes', () => {
    const one = parseScopeList('read_products,read_orders');
    expect(one.ok).toBe(false);
    expect(!one.ok && one.message).toMatch(/^has an unknown scope 'read_orders' \(known scopes: read_products, /);
    const two = parseScopeList(['x', 'y', 'x']);
    expect(!two.ok && two.message).toMatch(/^has unknown scopes 'x', 'y' /);
  });

  it('refuses other shapes', () => {
    for (const input of [undefined, null, 5, { scope: 'read_products' }, ['read_products', 5]]) {
      expect(parseScopeList(input)).toEqual({ ok: false, message: 'must be an array of scope names or a comma-separated string' });
    }
  });
});

describe('minimalScopeString', () => {
  it('omits read scopes implied by a granted write scope, keeping the given order', () => {
    expect(minimalScopeString(['read_products', 'write_products', 'read_inventory'])).toBe('write_products,read_inventory');
  });

  it('keeps read scopes without their write scope and removes duplicates', () => {
    expect(minimalScopeString(['read_metafields', 'read_store_information', 'read_metafields'])).toBe(
      'read_metafields,read_store_information',
    );
  });

  it('gives an empty string for no scopes', () => {
    expect(minimalScopeString([])).toBe('');
  });
});
