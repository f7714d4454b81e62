import { describe, expect, it } from 'vitest';
import { accessOutcome, isAllowed, type DefinitionAction, type DefinitionActor } from './resolve-permissions';
import { ACCESS_ADMIN_VALUES, type AccessAdmin } from './validate-definition';

const ACTIONS: DefinitionAction[] = ['view', 'update', 'delete', 'read_values', 'write_values'];
const grants = (admin: AccessAdmin, actor: DefinitionActor) => ACTIONS.filter((a) => isAllowed(admin, actor, a));

describe('access permission values (spec table)', () => {
  it('the creating app manages the definition under every value', () => {
    for (const admin of ACCESS_ADMIN_VALUES) expect(grants(admin, 'creator_app'), admin).toEqual(ACTIONS);
  });

  it('MERCHANT_READ_WRITE: merchant manages definitions and values; other apps no read, no write', () => {
    expect(grants('MERCHANT_READ_WRITE', 'merchant')).toEqual(ACTIONS);
    expect(grants('MERCHANT_READ_WRITE', 'other_app')).toEqual([]);
  });

  it('MERCHANT_READ: merchant views the definition only and cannot delete it; other apps nothing', () => {
    expect(grants('MERCHANT_READ', 'merchant')).toEqual(['view', 'read_values']);
    expect(isAllowed('MERCHANT_READ', 'merchant', 'delete')).toBe(false);
    expect(grants('MERCHANT_READ', 'other_app')).toEqual([]);
  });

  it('PUBLIC_READ: merchant views only, cannot delete; other apps read only', () => {
    expect(grants('PUBLIC_READ', 'merchant')).toEqual(['view', 'read_values']);
    expect(isAllowed('PUBLIC_READ', 'merchant', 'delete')).toBe(false);
    expect(grants('PUBLIC_READ', 'other_app')).toEqual(['view', 'read_values']);
  });

  it('PRIVATE: the merchant admin cannot view it; other apps nothing', () => {
    expect(grants('PRIVATE', 'merchant')).toEqual([]);
    expect(grants('PRIVATE', 'other_app')).toEqual([]);
  });

  it('NONE: merchant manages definitions and values; other apps read and write', () => {
    expect(grants('NONE', 'merchant')).toEqual(ACTIONS);
    expect(grants('NONE', 'other_app')).toEqual(ACTIONS);
  });
});

describe('accessOutcome (decisions §8.7)', () => {
  it('hides what the actor may not read, forbids what it may read but not do', () => {
    expect(accessOutcome('MERCHANT_READ_WRITE', 'other_app', 'view')).toBe('not_found');
    expect(accessOutcome('PRIVATE', 'merchant', 'read_values')).toBe('not_found');
    expect(accessOutcome('PUBLIC_READ', 'other_app', 'write_values')).toBe('forbidden');
    expect(accessOutcome('PUBLIC_READ', 'other_app', 'read_values')).toBe('allowed');
    expect(accessOutcome('MERCHANT_READ', 'merchant', 'delete')).toBe('forbidden');
    expect(accessOutcome('NONE', 'other_app', 'update')).toBe('allowed');
  });
});
