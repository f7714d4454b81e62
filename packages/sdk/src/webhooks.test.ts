import { signWebhookBody } from '@platform/domain/signing';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from './webhooks';

const SECRET = 'secret-0123456789';
const BODY = '{"fulfillment_order":{"id":"5","status":"open"}}';
const headers = (signature: string, extra: Record<string, string> = {}) => ({
  'X-Platform-Topic': 'fulfillment_order/released',
  'X-Platform-Hmac-Sha256': signature,
  'X-Platform-Shop-Domain': 'demo.myplatform.com',
  'X-Platform-Shop-Id': '1',
  'X-Platform-Merchant-Id': '2',
  'X-Platform-API-Version': 'v20260901',
  'X-Platform-Webhook-Id': 'w-1',
  ...extra,
});

function failure(run: () => unknown): WebhookVerificationError {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error;
    throw error;
  }
  throw new Error('did not fail');
}

describe(verifyWebhook.name, () => {
  it('verifies the hex signature over the exact bytes (decisions §11.3), from a string, bytes or fetch Headers', () => {
    const signature = signWebhookBody(BODY, SECRET);
    const webhook = verifyWebhook(new TextEncoder().encode(BODY), headers(signature.toUpperCase()), SECRET);
    expect(webhook).toMatchObject({
      topic: 'fulfillment_order/released',
      payload: { fulfillment_order: { id: '5', status: 'open' } },
      webhookId: 'w-1',
    });
    expect(verifyWebhook(BODY, new Headers(headers(signature)), SECRET).shopId).toBe('1');
  });

  it('accepts any of several secrets while one is rotated', () => {
    expect(verifyWebhook(BODY, headers(signWebhookBody(BODY, 'new-secret-0123456789')), [SECRET, 'new-secret-0123456789']).topic).toBe(
      'fulfillment_order/released',
    );
  });

  it('refuses a body that differs by one byte, even only in whitespace', () => {
    const error = failure(() => verifyWebhook(BODY.replace(':"5"', ': "5"'), headers(signWebhookBody(BODY, SECRET)), SECRET));
    expect(error).toMatchObject({ reason: 'BAD_SIGNATURE', status: 401 });
  });

  it('says a JSON parser ran first when given an object instead of the bytes', () => {
    const error = failure(() => verifyWebhook(JSON.parse(BODY) as never, headers(signWebhookBody(BODY, SECRET)), SECRET));
    expect(error).toMatchObject({ reason: 'BODY_ALREADY_PARSED', status: 500 });
    expect(error.message).toMatch(/express\.raw/);
  });

  it('names a missing header and refuses a body that is not a JSON object', () => {
    const signature = signWebhookBody(BODY, SECRET);
    const h = headers(signature) as Record<string, string>;
    delete h['X-Platform-Webhook-Id'];
    expect(failure(() => verifyWebhook(BODY, h, SECRET))).toMatchObject({
      reason: 'MISSING_HEADER',
      status: 400,
      message: expect.stringMatching(/X-Platform-Webhook-Id/),
    });
    expect(failure(() => verifyWebhook('[1]', headers(signWebhookBody('[1]', SECRET)), SECRET))).toMatchObject({
      reason: 'MALFORMED_BODY',
    });
    expect(failure(() => verifyWebhook(BODY, headers(''), SECRET))).toMatchObject({ reason: 'MISSING_SIGNATURE' });
  });

  it('wants a secret', () => {
    expect(() => verifyWebhook(BODY, headers('x'), '')).toThrow(TypeError);
  });
});

describe('WebhookPayload', () => {
  it("is typed by topic from a contract module's webhookPayloadSchemas, and plain JSON without them", async () => {
    const { z } = await import('zod');
    const schemas = { 'inventory_items/update': z.object({ inventory_item: z.object({ id: z.string(), sku: z.string() }) }) };
    expect(schemas['inventory_items/update'].parse({ inventory_item: { id: '1', sku: 'a' } })).toEqual({
      inventory_item: { id: '1', sku: 'a' },
    });
    type Schemas = import('./webhooks').PayloadSchemasOf<{ webhookPayloadSchemas: typeof schemas }>;
    expectTypeOf<import('./webhooks').WebhookPayload<'inventory_items/update', Schemas>>().toEqualTypeOf<{
      inventory_item: { id: string; sku: string };
    }>();
    expectTypeOf<import('./webhooks').WebhookPayload<'fulfillment_order/released', Schemas>>().toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<import('./webhooks').PayloadSchemasOf<{ other: 1 }>>().toEqualTypeOf<Record<never, never>>();
  });
});
