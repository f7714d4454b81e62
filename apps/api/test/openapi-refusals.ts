/*
 * decisions §12.9: the 400s and 422s a request the document allows may still get, because they are
 * about the state of the data, not the request's shape; and the few rules the document states in
 * words because JSON Schema cannot (its info.description lists them). Each with its reason. Anything
 * else a document-driven tester meets is a rule the document fails to state.
 */

interface Refusal {
  /** Operations it applies to (all when absent). */
  operations?: readonly string[];
  /** Only for requests like this (the refusal is about what the request left to the stored data). */
  when?: (body: Record<string, unknown>) => boolean;
  message: RegExp;
  reason: string;
}

const REFUSALS: readonly Refusal[] = [
  {
    message: /^page_info: is invalid$/,
    reason: 'a cursor this service did not issue for this listing: like an unknown id, its validity is the server’s record, not a shape',
  },
  {
    message: /^This Idempotency-Key was used for another request .*; send a new key with a new request$/,
    reason: 'the key is in use: what the service has kept under it is state (docs/idempotency.md)',
  },
  {
    operations: ['installApp'],
    message: /^scopes: .* (is|are) not among the scopes the app registered/,
    reason: 'the scopes the app registered are stored data',
  },
  {
    operations: ['updateProductMetafield'],
    message: /^(namespace|key): cannot be changed \(it is .*\)$/,
    reason: 'the stored value’s namespace and key',
  },
  {
    operations: ['createWebhook', 'updateWebhook', 'updateWebhookAlias'],
    message: /^api_version: '.*' is not a supported version/,
    reason: 'the supported versions move with the clock (decisions §2.2); the document states their form',
  },
  {
    message: /has already been taken|already exists/,
    reason: 'a conflict with a stored record (a key, handle or subscription in use)',
  },
  {
    operations: ['createProductMetafield', 'setMetafields'],
    message:
      /^(metafields\[\d+\]\.)?(type: can't be blank \(a value without a definition must name its type\)|type: must be [\w.]+, the type of its definition|owner_id: product \d+ does not exist)$/,
    reason: 'whether a definition exists and its type, whether the product exists: stored data',
  },
  {
    operations: ['createProductMetafield', 'updateProductMetafield', 'setMetafields'],
    message: /^(metafields\[\d+\]\.)?value(\[\d+\])?: /,
    reason:
      "the value's format is its type's (JSON text for structured types and lists, decisions §8.8), the type often the stored " +
      "definition's, and then the definition's rules: stated in words (info.description), JSON Schema cannot read JSON text",
  },
  {
    operations: ['createMetafieldDefinition', 'updateMetafieldDefinition'],
    message: /^validations(\[\d+\]\.value)?: /,
    reason:
      'a rule value is JSON text, a regular expression or a JSON Schema whose format depends on the rule and the type, and ' +
      'bounds compare with each other (min at most max): stated in words, JSON Schema cannot read JSON text or compare two fields',
  },
  {
    operations: ['redeliverWebhookDelivery', 'releaseFulfillmentOrder', 'refreshAppToken'],
    message:
      /^status: only a failed delivery can be redelivered|^subscription: |^status: a fulfillment order can be released only while open|^app: is a \w+ app; only a private app's token/,
    reason: "the stored record's status or kind: a delivery not failed, an order already released, an app not private",
  },
  {
    operations: ['updateInventoryItem'],
    message: /^fulfillment_location_id: (applies only when location_type is fulfillment|can't be blank when location_type is fulfillment)$/,
    when: (body) => {
      const item = (body['inventory_item'] ?? {}) as Record<string, unknown>;
      return !('location_type' in item) || !('fulfillment_location_id' in item);
    },
    reason: 'the stored location type or id, when the request leaves it out (the document states the rule for what it sends)',
  },
];

/** Whether a 400/422 answer is one of the refusals about the state of the data (each part of a joined message). */
export function refusalAboutState(operationId: string, request: { body?: unknown }, answer: unknown): boolean {
  const message = typeof answer === 'object' && answer !== null && 'errors' in answer ? String((answer as { errors: unknown }).errors) : '';
  const sent = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>;
  const applies = (r: Refusal, text: string) =>
    (!r.operations || r.operations.includes(operationId)) && r.message.test(text) && (!r.when || r.when(sent));
  return REFUSALS.some((r) => applies(r, message)) || message.split('; ').every((part) => REFUSALS.some((r) => applies(r, part)));
}
