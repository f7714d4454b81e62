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

/** `enabled` receives events; `disabled` (by the app, or by the sender after a 410 or 8 failed deliveries, §11.5) does not. */
export const WEBHOOK_STATUSES = ['enabled', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/** A delivery's life: pending (due at its next attempt), then delivered, or failed when retries run out (§11.5). */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
