import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from './claimed';
import { loneAfter, type LoneQueue } from './lone';

const delivery = (subscriptionId: bigint, over: Partial<ClaimedDelivery> = {}): ClaimedDelivery => ({
  id: 1n,
  subscriptionId,
  appId: 7n,
  storeId: 3n,
  webhookId: 'w',
  topic: 'inventory_items/update',
  apiVersion: 'v20260901',
  body: '{}',
  triggeredAt: new Date(0),
  nextAttemptAt: new Date(0),
  attempts: 0,
  address: 'https://Hooks.Example.com:8443/in',
  leaseHost: null,
  subscriptionStatus: 'enabled',
  appSecret: 's',
  handle: 'shop',
  ianaTimezone: 'UTC',
  merchantId: 1n,
  traceId: null,
  ...over,
});

const before: LoneQueue = { subscriptionId: 5n, appId: 7n, storeId: 3n, address: 'https://a.example/x', host: 'a.example' };

describe('which subscription the next claim may take alone', () => {
  it('is the one subscription a planned claim took deliveries of, counted or held, its host as the caps count it', () => {
    expect(loneAfter(undefined, { rows: [delivery(9n, { leaseHost: 'hooks.example.com' }), delivery(9n)], promotedOf: [] })).toEqual({
      subscriptionId: 9n,
      appId: 7n,
      storeId: 3n,
      address: 'https://Hooks.Example.com:8443/in',
      host: 'hooks.example.com',
    });
  });

  it('stays as it was after a claim that found nothing, or only gave slots to held deliveries of it', () => {
    expect(loneAfter(before, { rows: [], promotedOf: [] })).toBe(before);
    expect(loneAfter(before, { rows: [], promotedOf: [5n, 5n] })).toBe(before);
    expect(loneAfter(before, { rows: [], promotedOf: [6n] })).toBeUndefined();
  });

  it('is none after a claim that worked on two subscriptions, or on a disabled or deleted one, or on deliveries of another app', () => {
    expect(loneAfter(before, { rows: [delivery(9n), delivery(10n)], promotedOf: [] })).toBeUndefined();
    expect(loneAfter(before, { rows: [delivery(9n)], promotedOf: [5n] })).toBeUndefined();
    expect(loneAfter(before, { rows: [delivery(9n, { subscriptionStatus: 'disabled' })], promotedOf: [] })).toBeUndefined();
    expect(loneAfter(before, { rows: [delivery(9n, { address: null, subscriptionStatus: null })], promotedOf: [] })).toBeUndefined();
    expect(loneAfter(before, { rows: [delivery(9n), delivery(9n, { appId: 8n })], promotedOf: [] })).toBeUndefined();
  });
});
