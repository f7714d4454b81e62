import { formatInZone } from '../time/format-in-zone';

export interface InventoryItemData {
  id: bigint | string;
  variantId: bigint | string;
  sku: string | null;
  cost: string | null;
  tracked: boolean;
  locationType: string;
  fulfillmentLocationId: bigint | string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface FulfillmentOrderData {
  id: bigint | string;
  status: string;
}

export interface RenderOptions {
  /** The subscription's api_version (decisions §11.3); no topic's body differs between versions yet. */
  apiVersion: string;
  /** The store's iana_timezone: times as in responses (decisions §3.3). */
  timeZone: string;
}

/**
 * The spec's inventory item table: ids as strings, `cost` decimal text, `tracked` a JSON boolean (the
 * table types it string but its sample is `true`; docs/webhooks.md), `fulfillment_location_id` null
 * unless `location_type` is `fulfillment`.
 */
export function renderInventoryItemWebhook(item: InventoryItemData, options: RenderOptions): string {
  return JSON.stringify({ inventory_item: inventoryItemObject(item, options.timeZone) });
}

/** The `inventory_item` object, also what the operator's update answers. */
export function inventoryItemObject(item: InventoryItemData, timeZone: string) {
  const fulfillment = item.locationType === 'fulfillment' && item.fulfillmentLocationId !== null;
  return {
    id: String(item.id),
    variant_id: String(item.variantId),
    sku: item.sku ?? '',
    cost: item.cost ?? '0.00',
    tracked: item.tracked,
    location_type: item.locationType,
    fulfillment_location_id: fulfillment ? String(item.fulfillmentLocationId) : null,
    created_at: formatInZone(item.createdAt, timeZone),
    updated_at: formatInZone(item.updatedAt, timeZone),
  };
}

/** The spec's fulfillment order body: id and status only. */
export function renderFulfillmentOrderWebhook(order: FulfillmentOrderData, _options: RenderOptions): string {
  return JSON.stringify({ fulfillment_order: { id: String(order.id), status: order.status } });
}
