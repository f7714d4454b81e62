import { z } from 'zod';
import {
  COST,
  DELIVERY_STATUSES,
  LOCATION_TYPES,
  MAX_ID,
  MAX_SKU,
  MAX_WEBHOOK_ADDRESS_LENGTH,
  MAX_WEBHOOKS_PER_APP_AND_STORE,
  WEBHOOK_STATUSES,
  WEBHOOK_TOPICS,
} from '@platform/domain/limits';
import { decimalsUpTo, urlRules } from './rules';
import { pageQuery, FIELDS_DESCRIPTION, ZDecimal, ZId, ZIsoTime, type AdminRouteMetadata, type OperatorRouteMetadata } from './common';
import { documented } from './openapi-json-schema';
import { objectOf, queryText, text } from './metafield-messages';
import { adminRouterOptions, c, operatorRouterOptions } from './router';

/*
 * decisions §11: webhook subscriptions (Admin API) and the bodies the sender posts. Request schemas
 * give shapes only: topics, addresses, versions and statuses are checked by the server with the
 * domain's rules, which own those messages.
 */

/** decisions §11.1. */
export const ZWebhookTopic = z.enum(['inventory_items/update', 'fulfillment_order/released']);
export type WebhookTopic = z.infer<typeof ZWebhookTopic>;

export const ZWebhookStatus = z.enum(['enabled', 'disabled']);
export type WebhookStatus = z.infer<typeof ZWebhookStatus>;

export const ZWebhook = z.object({
  id: ZId,
  topic: ZWebhookTopic,
  address: z.string().describe('The https:// URL events are posted to, in its normal form (docs/webhooks.md).'),
  api_version: z.string().describe('The version bodies are rendered in; defaults to the version of the creating request.'),
  status: ZWebhookStatus.describe(
    'disabled: by the app, or by the service after a 410 answer or 8 failed deliveries in a row (decisions §11.5).',
  ),
  created_at: ZIsoTime,
  updated_at: ZIsoTime,
});
export type Webhook = z.infer<typeof ZWebhook>;

/** A subscription as a listing returns it: `fields` keeps only the named fields, `id` always (decisions §6.4). */
export const ZListedWebhook = ZWebhook.partial().extend({ id: ZId });
export type ListedWebhook = z.infer<typeof ZListedWebhook>;

const topic = () =>
  documented(text().describe('inventory_items/update needs read_inventory, fulfillment_order/released read_fulfillments.'), {
    enum: [...WEBHOOK_TOPICS],
  });
const address = () =>
  documented(
    text().describe('An https:// URL, no user name or password, no fragment, not a private address (decisions §11.2).'),
    urlRules('https', MAX_WEBHOOK_ADDRESS_LENGTH),
  );
const apiVersion = () =>
  documented(text().describe('A supported version (decisions §2: they move with the clock; another is 422).'), { pattern: '^v\\d{8}$' });
const webhookStatus = () => documented(text(), { enum: [...WEBHOOK_STATUSES] });

export const ZWebhookCreate = objectOf({
  topic: topic(),
  address: address(),
  api_version: apiVersion().optional().describe('Defaults to the version of this request.'),
  status: webhookStatus().optional().describe('Default enabled.'),
});
export type WebhookCreate = z.infer<typeof ZWebhookCreate>;

/** Every field optional; re-enabling a disabled subscription clears its failure count. */
export const ZWebhookUpdate = objectOf({
  topic: topic().optional(),
  address: address().optional(),
  api_version: apiVersion().optional(),
  status: webhookStatus().optional(),
});
export type WebhookUpdate = z.infer<typeof ZWebhookUpdate>;

export const ZListWebhooksQuery = z.object({
  ...pageQuery(queryText),
  fields: queryText().optional().describe(FIELDS_DESCRIPTION),
  topic: documented(queryText(), { enum: [...WEBHOOK_TOPICS] })
    .optional()
    .describe('Only subscriptions of this topic.'),
});
export type ListWebhooksQuery = z.infer<typeof ZListWebhooksQuery>;

/**
 * decisions §5.5: a subscription needs the read scope of its topic. The routes admit a token with
 * either topic's scope; each subscription is then checked against its own topic's (403 naming it),
 * and the listing shows only topics the token may read.
 */
const WEBHOOK_SCOPES = { scope: 'read_inventory', orScopes: ['read_fulfillments'] } satisfies Omit<AdminRouteMetadata, 'auth'>;

const one = z.object({ webhook: ZWebhook });
const idParams = z.object({ id: ZId });

/** Read, change and remove one subscription at `path` (two paths answer them alike, decisions §11.1). */
function subscriptionRoutes<P extends string>(path: P, note?: string) {
  const noted = note ? ` (${note})` : '';
  return {
    get: {
      method: 'GET',
      path,
      pathParams: idParams,
      responses: { 200: one },
      summary: `Read a subscription${noted}`,
      metadata: WEBHOOK_SCOPES,
    },
    update: {
      method: 'PUT',
      path,
      pathParams: idParams,
      body: objectOf({ webhook: ZWebhookUpdate }),
      responses: { 200: one },
      summary: `Change a subscription (${note ?? 'topic, address, api_version, status'})`,
      metadata: WEBHOOK_SCOPES,
    },
    remove: {
      method: 'DELETE',
      path,
      pathParams: idParams,
      responses: { 200: z.object({}) },
      summary: `Remove a subscription${noted}`,
      metadata: WEBHOOK_SCOPES,
    },
  } as const;
}
const byId = subscriptionRoutes('/webhooks/:id.json');
const alias = subscriptionRoutes('/:id/webhooks.json', 'alias of /webhooks/{id}.json');

export const webhooksContract = c.router(
  {
    createWebhook: {
      method: 'POST',
      path: '/webhooks.json',
      body: objectOf({ webhook: ZWebhookCreate }),
      responses: { 201: one },
      summary: 'Subscribe to a topic',
      description:
        'One subscription per (app, store, topic, address): a duplicate is 422. ' +
        `An app has at most ${MAX_WEBHOOKS_PER_APP_AND_STORE} subscriptions per store (decisions §11.7): one more is 422.`,
      metadata: WEBHOOK_SCOPES,
    },
    listWebhooks: {
      method: 'GET',
      path: '/webhooks.json',
      query: ZListWebhooksQuery,
      responses: { 200: z.object({ webhooks: z.array(ZListedWebhook) }) },
      summary: "The calling app's subscriptions on this store, ascending id, cursor-paginated",
      description: 'Only subscriptions whose topic the token may read are listed.',
      metadata: { ...WEBHOOK_SCOPES, paginated: true },
    },
    getWebhook: byId.get,
    updateWebhook: byId.update,
    deleteWebhook: byId.remove,
    // decisions §11.1: the same three answered at /{id}/webhooks.json, the form this platform family publishes.
    getWebhookAlias: alias.get,
    updateWebhookAlias: alias.update,
    deleteWebhookAlias: alias.remove,
  },
  adminRouterOptions,
);

/**
 * The spec's inventory item table. `tracked` is a JSON boolean: the table types it string, but its
 * sample is `true` and the product's `inventory_tracker` is a boolean. `fulfillment_location_id` is
 * null unless `location_type` is `fulfillment`.
 */
export const ZInventoryItem = z.object({
  id: ZId,
  variant_id: ZId,
  sku: z.string(),
  cost: ZDecimal.describe('Cost per unit, decimal text.'),
  tracked: z.boolean(),
  location_type: z.string().describe('Samples: normal; fulfillment is named.'),
  fulfillment_location_id: ZId.nullable(),
  created_at: ZIsoTime,
  updated_at: ZIsoTime,
});
export type InventoryItem = z.infer<typeof ZInventoryItem>;

export const ZFulfillmentOrderStatus = z.enum(['open', 'released']);

/** Body of `inventory_items/update` (decisions §11.3). */
export const ZInventoryItemWebhook = z.object({ inventory_item: ZInventoryItem });
export type InventoryItemWebhook = z.infer<typeof ZInventoryItemWebhook>;

/** Body of `fulfillment_order/released`: id and status only, as the spec shows. */
export const ZFulfillmentOrderWebhook = z.object({
  fulfillment_order: z.object({ id: ZId, status: z.string().describe('released when the event is sent.') }),
});
export type FulfillmentOrderWebhook = z.infer<typeof ZFulfillmentOrderWebhook>;

/** Topic -> body schema: the sender renders these, SDK users parse them. */
export const webhookPayloadSchemas = {
  'inventory_items/update': ZInventoryItemWebhook,
  'fulfillment_order/released': ZFulfillmentOrderWebhook,
} as const satisfies Record<WebhookTopic, z.ZodTypeAny>;
export type WebhookPayloads = { [T in WebhookTopic]: z.infer<(typeof webhookPayloadSchemas)[T]> };

/**
 * decisions §10: the operator's change of an inventory item; every field optional. A location id
 * belongs with `fulfillment` only: with `normal` it is refused (null clears it), and `fulfillment`
 * needs one (given here, or stored: the stored row decides what the body leaves out).
 */
const LOCATION_RULES = {
  allOf: [
    {
      if: { properties: { location_type: { const: 'normal' } }, required: ['location_type'] },
      then: { properties: { fulfillment_location_id: { type: 'null' } } },
    },
    {
      if: { properties: { location_type: { const: 'fulfillment' } }, required: ['location_type'] },
      then: { properties: { fulfillment_location_id: { not: { type: 'null' } } } },
    },
  ],
};

export const ZInventoryItemUpdate = documented(
  objectOf({
    sku: documented(text(), { maxLength: MAX_SKU }).optional(),
    cost: documented(z.union([z.string(), z.number()], { invalid_type_error: 'must be a decimal number' }), {
      anyOf: [
        { type: 'string', pattern: COST.source },
        { type: 'integer', minimum: 0, maximum: 9_999_999_999_999 },
      ],
    })
      .optional()
      .describe('Non-negative decimal text, at most 13 integer and 9 fraction digits (or a number).'),
    tracked: z.boolean({ invalid_type_error: 'must be true or false' }).optional(),
    location_type: documented(text(), { enum: [...LOCATION_TYPES] }).optional(),
    fulfillment_location_id: documented(z.union([z.string(), z.number()], { invalid_type_error: 'must be an id' }), {
      // decisions §3.5: a 64-bit id, as text (no leading zeros), or a number JSON carries exactly.
      anyOf: [
        { type: 'string', pattern: `^${decimalsUpTo(MAX_ID, false)}$`, not: { const: '0' } },
        { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
        { type: 'null' },
      ],
    })
      .nullable()
      .optional()
      .describe('Required when location_type is fulfillment; cleared when it is normal.'),
  }),
  LOCATION_RULES,
);
export type InventoryItemUpdate = z.infer<typeof ZInventoryItemUpdate>;

export const ZOperatorFulfillmentOrder = z.object({
  id: ZId,
  status: ZFulfillmentOrderStatus,
  created_at: ZIsoTime,
  updated_at: ZIsoTime,
});
export type OperatorFulfillmentOrder = z.infer<typeof ZOperatorFulfillmentOrder>;

export const ZDeliveryStatus = z.enum(['pending', 'delivered', 'failed']);
export type DeliveryStatus = z.infer<typeof ZDeliveryStatus>;

export const ZWebhookAttempt = z.object({
  number: z.number().int().describe('1 for the first attempt of a round; a redelivery starts a new round.'),
  started_at: ZIsoTime,
  duration_ms: z.number().int(),
  response_status: z.number().int().nullable().describe('null when no answer came (connect error, timeout, refused address).'),
  error: z.string().nullable(),
  response_body: z.string().nullable().describe('At most 4 KB.'),
});
export type WebhookAttempt = z.infer<typeof ZWebhookAttempt>;

export const ZWebhookDelivery = z.object({
  id: ZId,
  webhook_id: z.string().describe('X-Platform-Webhook-Id: the same on every attempt.'),
  subscription_id: ZId,
  app_id: ZId,
  topic: ZWebhookTopic,
  address: z.string().nullable().describe("The subscription's address; null when the subscription was removed."),
  api_version: z.string(),
  status: ZDeliveryStatus,
  attempt_count: z.number().int(),
  next_attempt_at: ZIsoTime,
  triggered_at: ZIsoTime,
  delivered_at: ZIsoTime.nullable(),
  last_error: z.string().nullable(),
  body: z.string().describe('The exact bytes sent and signed.'),
  created_at: ZIsoTime,
  updated_at: ZIsoTime,
  attempts: z.array(ZWebhookAttempt).describe('Oldest first.'),
});
export type WebhookDelivery = z.infer<typeof ZWebhookDelivery>;

export const ZListDeliveriesQuery = z.object({
  status: documented(queryText(), { enum: [...DELIVERY_STATUSES] })
    .optional()
    .describe('Absent lists all.'),
  ...pageQuery(queryText),
});
export type ListDeliveriesQuery = z.infer<typeof ZListDeliveriesQuery>;

export const operatorWebhooksContract = c.router(
  {
    updateInventoryItem: {
      method: 'PUT',
      path: '/stores/:handle/inventory_items/:id',
      body: objectOf({ inventory_item: ZInventoryItemUpdate }),
      responses: { 200: z.object({ inventory_item: ZInventoryItem }) },
      summary: 'Change an inventory item; emits inventory_items/update',
      description: 'The change and one delivery per matching enabled subscription are written in one transaction (decisions §11.6).',
    },
    createFulfillmentOrder: {
      method: 'POST',
      path: '/stores/:handle/fulfillment_orders',
      body: z.object({ fulfillment_order: z.object({}).optional() }).optional(),
      responses: { 201: z.object({ fulfillment_order: ZOperatorFulfillmentOrder }) },
      summary: 'Create a fulfillment order (status open); emits nothing',
    },
    releaseFulfillmentOrder: {
      method: 'POST',
      path: '/stores/:handle/fulfillment_orders/:id/release',
      body: c.noBody(),
      responses: { 200: z.object({ fulfillment_order: ZOperatorFulfillmentOrder }) },
      summary: 'Release an open fulfillment order; emits fulfillment_order/released',
      description: 'Only an open order can be released: releasing twice is 422, so the event is sent once.',
    },
    listWebhookDeliveries: {
      method: 'GET',
      path: '/stores/:handle/webhooks/deliveries',
      query: ZListDeliveriesQuery,
      responses: { 200: z.object({ deliveries: z.array(ZWebhookDelivery) }) },
      summary: "A store's webhook deliveries with their attempts, ascending id, cursor-paginated",
      metadata: { paginated: true } satisfies Partial<OperatorRouteMetadata>,
    },
    redeliverWebhookDelivery: {
      method: 'POST',
      path: '/stores/:handle/webhooks/deliveries/:id/redeliver',
      body: c.noBody(),
      responses: { 200: z.object({ delivery: ZWebhookDelivery }) },
      summary: 'Send a failed delivery again: pending, due now, with a fresh round of retries',
      description: 'Only a failed delivery of an enabled subscription: anything else is 422.',
    },
  },
  operatorRouterOptions,
);
