import { describe, expect, it } from 'vitest';
import { renderFulfillmentOrderWebhook, renderInventoryItemWebhook } from './render-payload';

const item = {
  id: 12n,
  variantId: 34n,
  sku: 'SKU-1',
  cost: '12.50',
  tracked: true,
  locationType: 'normal',
  fulfillmentLocationId: 9n,
  createdAt: new Date('2026-11-22T04:05:01.400Z'),
  updatedAt: new Date('2026-11-22T05:00:00Z'),
};

describe('webhook bodies (decisions §11.3)', () => {
  it('renders the inventory item with string ids and times in the store zone', () => {
    expect(JSON.parse(renderInventoryItemWebhook(item, { apiVersion: 'v20260901', timeZone: 'Asia/Shanghai' }))).toEqual({
      inventory_item: {
        id: '12',
        variant_id: '34',
        sku: 'SKU-1',
        cost: '12.50',
        tracked: true,
        location_type: 'normal',
        fulfillment_location_id: null,
        created_at: '2026-11-22T12:05:01+08:00',
        updated_at: '2026-11-22T13:00:00+08:00',
      },
    });
  });

  it('names the fulfillment location only for location_type fulfillment', () => {
    const body = JSON.parse(
      renderInventoryItemWebhook({ ...item, locationType: 'fulfillment' }, { apiVersion: 'v20260901', timeZone: 'UTC' }),
    );
    expect(body.inventory_item.fulfillment_location_id).toBe('9');
  });

  it('renders the fulfillment order as id and status', () => {
    expect(renderFulfillmentOrderWebhook({ id: 5n, status: 'released' }, { apiVersion: 'v20260901', timeZone: 'UTC' })).toBe(
      '{"fulfillment_order":{"id":"5","status":"released"}}',
    );
  });
});
