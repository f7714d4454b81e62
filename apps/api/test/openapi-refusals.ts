import { VALUE_FORMAT_IN_WORDS } from '@platform/domain/limits';

/*
 * decisions §12.9: the 400s and 422s a request the document allows may still get, because they are
 * about the state of the data, not the request's shape; and the few rules the document states in
 * words because JSON Schema cannot (its info.description lists them). Each with its reason. Anything
 * else a document-driven tester meets is a rule the document fails to state.
 */

interface Refusal {
  /** Operations it applies to (all when absent). */
  operations?: readonly string[];
  /** Only for requests like this (the refusal is about what the request left to the stored data), given the refusal's part. */
  when?: (body: Record<string, unknown>, part: string) => boolean;
  message: RegExp;
  reason: string;
}

const VALUE_WRITES = ['createProductMetafield', 'updateProductMetafield', 'setMetafields'];
const VALUE_PART = /^(metafields\[\d+\]\.)?value(\[\d+\])?(\.\w+)?: /;

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
    operations: VALUE_WRITES,
    message:
      /^(metafields\[\d+\]\.)?(type: can't be blank \(a value without a definition must name its type\)|type: must be [\w.]+, the type of its definition|owner_id: product \d+ does not exist)$/,
    reason: 'whether a definition exists and its type (the stored value’s on an update), whether the product exists: stored data',
  },
  {
    operations: VALUE_WRITES,
    message: VALUE_PART,
    when: (body, part) => namedType(body, part) === undefined,
    reason: 'the request names no type: the format is the stored definition’s type (or, on an update, the stored value’s)',
  },
  {
    operations: VALUE_WRITES,
    message:
      /^(metafields\[\d+\]\.)?value(\[\d+\])?(\.\w+)?: (.* \(rule [\w.]+\)|must reference an existing metaobject|cannot be checked: the definition .*)$/,
    reason: "a stored definition's rules (messages name the rule), a metaobject's existence, a stored definition that no longer compiles",
  },
  {
    // decisions §8.8: the value's format by the type the request names is the document's anyOf;
    // these are what it says in words (info.description, VALUE_FORMAT_IN_WORDS), each where it applies.
    operations: VALUE_WRITES,
    message: VALUE_PART,
    when: (body, part) => inWords(namedType(body, part), part.replace(/^metafields\[\d+\]\./, '')),
    reason: `stated in words: ${VALUE_FORMAT_IN_WORDS.join('; ')}`,
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

/** The value of one entry of the request (`metafields[3].value: ...` names the entry), and the type it names. */
function namedType(body: Record<string, unknown>, part: string): string | undefined {
  const index = /^metafields\[(\d+)\]\./.exec(part)?.[1];
  const entries = body['metafields'];
  const entry = (index !== undefined && Array.isArray(entries) ? entries[Number(index)] : body['metafield']) as
    Record<string, unknown> | undefined;
  const type = entry?.['type'];
  return typeof type === 'string' ? type : undefined;
}

const JSON_TYPES = /^(list\..*|json|weight|volume|dimension|rating|link)$/;

/** Whether a value refusal for `type` is one of the rules the document states in words (VALUE_FORMAT_IN_WORDS). */
function inWords(type: string | undefined, part: string): boolean {
  if (type === undefined) return false;
  if (/^value(\[\d+\])?(\.url)?: is too long \(maximum is \d+ bytes\)$/.test(part)) return true;
  if (/^(list\.)?(url|link)$/.test(type) && /^value(\[\d+\])?(\.url)?: is not a valid URL$/.test(part)) return true;
  if (/^value: is not valid JSON \(duplicate key /.test(part)) return JSON_TYPES.test(type);
  // Numbers in JSON text (measures, list elements) as written: exponent, digits.
  const number =
    /^value(\[\d+\])?(\.value)?: (must be a decimal number \(.*\)|must have at most \d+ digits (before|after) the decimal point|must be an integer \(.*\))$/;
  if (number.test(part)) return /^list\.|^(weight|volume|dimension)$/.test(type);
  // A rating's value within its own scale.
  const scale =
    /^value(\[\d+\])?(: has a (minimum|maximum) of \S+ \(rule scale_(min|max)\)|\.scale_min: must be less than or equal to scale_max)$/;
  return /rating$/.test(type) && scale.test(part);
}

/** Whether a 400/422 answer is one of the refusals about the state of the data (each part of a joined message). */
export function refusalAboutState(operationId: string, request: { body?: unknown }, answer: unknown): boolean {
  const message = typeof answer === 'object' && answer !== null && 'errors' in answer ? String((answer as { errors: unknown }).errors) : '';
  const sent = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>;
  const applies = (r: Refusal, text: string) =>
    (!r.operations || r.operations.includes(operationId)) && r.message.test(text) && (!r.when || r.when(sent, text));
  return REFUSALS.some((r) => applies(r, message)) || message.split('; ').every((part) => REFUSALS.some((r) => applies(r, part)));
}
