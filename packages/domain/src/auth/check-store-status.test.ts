import { describe, expect, it } from 'vitest';
import { checkStoreStatus } from './check-store-status';

const now = new Date('2026-11-25T12:00:00Z');

describe('checkStoreStatus (decisions §5.6)', () => {
  it('lets an active store with a plan in force through', () => {
    expect(() => checkStoreStatus({ status: 'active', planExpiresAt: null }, now)).not.toThrow();
    expect(() => checkStoreStatus({ status: 'active', planExpiresAt: new Date(now.getTime() + 1) }, now)).not.toThrow();
  });

  it('answers 423 for a closed store, 402 for a frozen one or an expired plan (at the instant it expires)', () => {
    expect(() => checkStoreStatus({ status: 'closed', planExpiresAt: null }, now)).toThrow(expect.objectContaining({ status: 423 }));
    expect(() => checkStoreStatus({ status: 'frozen', planExpiresAt: null }, now)).toThrow(expect.objectContaining({ status: 402 }));
    expect(() => checkStoreStatus({ status: 'active', planExpiresAt: now }, now)).toThrow(/plan has expired/);
  });
});
