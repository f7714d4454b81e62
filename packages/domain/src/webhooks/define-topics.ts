import type { Scope } from '../auth/define-scopes';

// decisions §11.1: the topics a subscription may name, and the read scope each needs (§5.5).
export const WEBHOOK_TOPICS = ['inventory_items/update', 'fulfillment_order/released'] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];

export const WEBHOOK_TOPIC_SCOPE: Readonly<Record<WebhookTopic, Scope>> = {
  'inventory_items/update': 'read_inventory',
  'fulfillment_order/released': 'read_fulfillments',
};

export function isWebhookTopic(topic: unknown): topic is WebhookTopic {
  return typeof topic === 'string' && (WEBHOOK_TOPICS as readonly string[]).includes(topic);
}

/**
 * decisions §11.7: the most subscriptions one app may have on one store (both statuses count), so
 * that no app can multiply its share of the sender by subscribing many addresses.
 */
export const MAX_WEBHOOKS_PER_APP_AND_STORE = 50;

/**
 * decisions §11.5: this many failed deliveries in a row disable the subscription (the sender decides
 * it; the merchant's pages say it).
 */
export const DISABLE_AFTER_FAILED_DELIVERIES = 8;

/** `enabled` receives events; `disabled` (by the app, or by the sender after a 410 or DISABLE_AFTER_FAILED_DELIVERIES failed deliveries, §11.5) does not. */
export const WEBHOOK_STATUSES = ['enabled', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/** A delivery's life: pending (due at its next attempt), then delivered, or failed when retries run out (§11.5). */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The longest subscription address accepted, in characters (URLs past 2,000 are unsafe in practice). */
export const MAX_WEBHOOK_ADDRESS_LENGTH = 2048;
