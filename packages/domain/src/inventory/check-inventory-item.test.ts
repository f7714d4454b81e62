import { describe, expect, it } from 'vitest';
import { applyLocationRules, checkInventoryItemInput } from './check-inventory-item';

describe('checkInventoryItemInput', () => {
  it('takes a number cost as its decimal text and an id as a bigint', () => {
    expect(
      checkInventoryItemInput({
        sku: 'A',
        cost: 4.25,
        tracked: false,
        location_type: 'fulfillment',
        fulfillment_location_id: '9223372036854775807',
      }),
    ).toEqual({
      ok: true,
      value: { sku: 'A', cost: '4.25', tracked: false, locationType: 'fulfillment', fulfillmentLocationId: 9223372036854775807n },
    });
  });

  it('names every bad field at once', () => {
    const result = checkInventoryItemInput({ sku: 'x'.repeat(256), cost: '-1', location_type: 'shelf', fulfillment_location_id: 0 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues.map((i) => i.field)).toEqual(['sku', 'cost', 'location_type', 'fulfillment_location_id']);
  });

  it('refuses an id past 64 bits or with leading zeros, and keeps an explicit null', () => {
    expect(checkInventoryItemInput({ fulfillment_location_id: '9223372036854775808' }).ok).toBe(false);
    expect(checkInventoryItemInput({ fulfillment_location_id: '012' }).ok).toBe(false);
    expect(checkInventoryItemInput({ fulfillment_location_id: null })).toEqual({ ok: true, value: { fulfillmentLocationId: null } });
  });
});

describe('applyLocationRules', () => {
  const normal = { locationType: 'normal', fulfillmentLocationId: null };
  const fulfillment = { locationType: 'fulfillment', fulfillmentLocationId: 7n };

  it('requires a fulfillment location when the item is (or becomes) a fulfillment location', () => {
    expect(applyLocationRules(normal, { locationType: 'fulfillment' })).toMatchObject({
      ok: false,
      message: expect.stringContaining("can't be blank"),
    });
    expect(applyLocationRules(fulfillment, { fulfillmentLocationId: null })).toMatchObject({ ok: false });
    expect(applyLocationRules(fulfillment, { sku: 'B' })).toEqual({ ok: true, value: { sku: 'B' } });
  });

  it('refuses a fulfillment location on a normal item and clears it when moving to normal', () => {
    expect(applyLocationRules(normal, { fulfillmentLocationId: 3n })).toMatchObject({
      ok: false,
      message: expect.stringContaining('applies only'),
    });
    expect(applyLocationRules(fulfillment, { locationType: 'normal' })).toEqual({
      ok: true,
      value: { locationType: 'normal', fulfillmentLocationId: null },
    });
  });
});
