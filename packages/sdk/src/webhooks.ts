// Pure: runs wherever fetch does. The HMAC rule is the domain's (decisions §11.3), the one the sender signs with.
import { toBytes, verifyWebhookSignature } from '@platform/domain/signing';
import type * as Contract from '@platform/contract';
import type { z } from 'zod';
import { PlatformError } from './errors';

/** The topics of decisions §11.1. */
export type WebhookTopic = 'inventory_items/update' | 'fulfillment_order/released';

// The contract's payload schemas by topic type each payload; until a contract carries them, payloads are plain JSON objects.
/** A module's `webhookPayloadSchemas` (zod schemas by topic), or none. */
export type PayloadSchemasOf<M> = M extends { webhookPayloadSchemas: infer S } ? S : Record<never, never>;
/** The body of a webhook of `T`, typed from the contract's `webhookPayloadSchemas`. */
export type WebhookPayload<T extends string, S = PayloadSchemasOf<typeof Contract>> = T extends keyof S
  ? S[T] extends z.ZodTypeAny
    ? z.output<S[T]>
    : Record<string, unknown>
  : Record<string, unknown>;

/** A verified webhook: one variant per topic, so `switch (webhook.topic)` narrows the payload. */
export type VerifiedWebhook = {
  [T in WebhookTopic]: {
    topic: T;
    payload: WebhookPayload<T>;
    /** X-Platform-Webhook-Id: the same on every attempt of one delivery; deduplicate on it (decisions §11.3). */
    webhookId: string;
    shopDomain: string;
    shopId: string;
    merchantId: string;
    apiVersion: string;
    triggeredAt: string | undefined;
  };
}[WebhookTopic];

export type WebhookFailure = 'BODY_ALREADY_PARSED' | 'MISSING_SIGNATURE' | 'BAD_SIGNATURE' | 'MISSING_HEADER' | 'MALFORMED_BODY';

/**
 * A webhook that did not verify. `status` is what a receiver should answer: 401 for a signature
 * problem, 400 for a malformed request, 500 when the receiving app is set up wrong (its JSON parser
 * consumed the body before the verifier could see the bytes).
 */
export class WebhookVerificationError extends PlatformError {
  readonly reason: WebhookFailure;
  readonly status: 400 | 401 | 500;
  constructor(reason: WebhookFailure, message: string) {
    super(message);
    this.reason = reason;
    this.status = reason === 'BODY_ALREADY_PARSED' ? 500 : reason === 'MALFORMED_BODY' || reason === 'MISSING_HEADER' ? 400 : 401;
  }
}

/** Headers as fetch (`Headers`), Node (`IncomingHttpHeaders`) or a plain object give them. */
export type HeadersLike = Headers | Record<string, string | readonly string[] | undefined>;

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function') {
    return (headers as Headers).get(name) ?? undefined;
  }
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== lower) continue;
    return typeof value === 'string' ? value : value?.[0];
  }
  return undefined;
}

export const BODY_ALREADY_PARSED_MESSAGE =
  'The webhook body reached the verifier already parsed (an object, not the bytes received): a JSON body parser ran first. ' +
  'The signature covers the exact bytes, so give the verifier the raw body: mount the handler before express.json() or use ' +
  'express.raw({ type: "application/json" }) on its route; in Fastify register the SDK plugin (it parses its route as a buffer); ' +
  'in NestJS create the app with { rawBody: true }.';

/**
 * Verifies a webhook's `X-Platform-Hmac-Sha256` over the exact body bytes (constant time; hex as the
 * sender writes it, base64 accepted too) and returns its typed payload. Give several secrets while
 * rotating one. Throws `WebhookVerificationError` with the reason.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: HeadersLike, secret: string | readonly string[]): VerifiedWebhook {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new WebhookVerificationError('BODY_ALREADY_PARSED', BODY_ALREADY_PARSED_MESSAGE);
  }
  const secrets = (typeof secret === 'string' ? [secret] : [...secret]).filter((s) => s.length > 0);
  if (secrets.length === 0) throw new TypeError('verifyWebhook: the app secret is required');
  const signature = header(headers, 'x-platform-hmac-sha256');
  if (!signature) throw new WebhookVerificationError('MISSING_SIGNATURE', 'The X-Platform-Hmac-Sha256 header is missing');
  const bytes = toBytes(rawBody);
  // Every secret is tried, so the time taken does not say which one matched.
  const matches = secrets.map((s) => verifyWebhookSignature(bytes, signature, s));
  if (!matches.includes(true)) {
    throw new WebhookVerificationError(
      'BAD_SIGNATURE',
      'X-Platform-Hmac-Sha256 does not match the body (wrong secret, or the body was changed)',
    );
  }
  const required = (name: string) => {
    const value = header(headers, name);
    if (!value) throw new WebhookVerificationError('MISSING_HEADER', `The ${name} header is missing`);
    return value;
  };
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new WebhookVerificationError('MALFORMED_BODY', 'The webhook body is not JSON');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new WebhookVerificationError('MALFORMED_BODY', 'The webhook body is not a JSON object');
  }
  return {
    topic: required('X-Platform-Topic') as WebhookTopic,
    payload: payload as never,
    webhookId: required('X-Platform-Webhook-Id'),
    shopDomain: required('X-Platform-Shop-Domain'),
    shopId: required('X-Platform-Shop-Id'),
    merchantId: required('X-Platform-Merchant-Id'),
    apiVersion: required('X-Platform-API-Version'),
    triggeredAt: header(headers, 'X-Platform-Triggered-At'),
  };
}

/** What a receiver should answer for `error`: a WebhookVerificationError's status and message, else 500. */
export function webhookErrorAnswer(error: unknown): { status: number; body: { errors: string } } {
  if (error instanceof WebhookVerificationError) return { status: error.status, body: { errors: error.message } };
  return { status: 500, body: { errors: 'The webhook handler failed' } };
}
