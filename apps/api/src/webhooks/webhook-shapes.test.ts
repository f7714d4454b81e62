import { ZDeliveryStatus, ZFulfillmentOrderWebhook, ZInventoryItemWebhook, ZWebhookStatus, ZWebhookTopic } from '@platform/contract';
import {
  DELIVERY_STATUSES,
  renderFulfillmentOrderWebhook,
  renderInventoryItemWebhook,
  WEBHOOK_STATUSES,
  WEBHOOK_TOPIC_SCOPE,
  WEBHOOK_TOPICS,
} from '@platform/domain';
import { describe, expect, it } from 'vitest';

describe('webhook topics and statuses (decisions §11)', () => {
  it('are the same in the contract (shapes, OpenAPI) and in the domain (checks)', () => {
    expect([...ZWebhookTopic.options]).toEqual([...WEBHOOK_TOPICS]);
    expect([...ZWebhookStatus.options]).toEqual([...WEBHOOK_STATUSES]);
    expect([...ZDeliveryStatus.options]).toEqual([...DELIVERY_STATUSES]);
    expect(Object.keys(WEBHOOK_TOPIC_SCOPE)).toEqual([...WEBHOOK_TOPICS]);
  });
});

describe('bodies the domain renders (decisions §11.3)', () => {
  it('parse with the contract schemas, whatever the zone and location type', () => {
    for (const timeZone of ['UTC', 'Asia/Kathmandu', 'America/St_Johns', 'Pacific/Chatham']) {
      for (const locationType of ['normal', 'fulfillment']) {
        const body = renderInventoryItemWebhook(
          {
            id: 9007199254740993n,
            variantId: 2n,
            sku: null,
            cost: null,
            tracked: false,
            locationType,
            fulfillmentLocationId: 3n,
            createdAt: new Date('2026-03-29T01:30:00Z'),
            updatedAt: new Date('2026-10-25T00:59:59.999Z'),
          },
          { apiVersion: 'v20260901', timeZone },
        );
        const parsed = ZInventoryItemWebhook.parse(JSON.parse(body));
        expect(parsed.inventory_item.id).toBe('9007199254740993');
        expect(parsed.inventory_item.fulfillment_location_id).toBe(locationType === 'fulfillment' ? '3' : null);
      }
    }
    expect(
      ZFulfillmentOrderWebhook.parse(
        JSON.parse(renderFulfillmentOrderWebhook({ id: 1n, status: 'released' }, { apiVersion: 'v20260901', timeZone: 'UTC' })),
      ),
    ).toBeTruthy();
  });
});
