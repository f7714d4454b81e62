// bench/webhooks: how the senders the benchmarks set beside ours (the bare loop, the graphile-worker
// task) POST: a keep-alive undici Agent with the sender's timeouts, and a delivery's headers as the
// sender sends them (apps/webhooks/src/attempt.ts), signed with @platform/domain's rule over
// node:crypto's HMAC, as the sender signs and a hand-written sender would.
import { createHmac, randomUUID } from 'node:crypto';
import { formatInZone, signWebhookBody } from '@platform/domain';
import { Agent } from 'undici';

/** undici keep-alive connections with the sender's connect and answer timeouts. */
export const keepAliveAgent = () =>
  new Agent({ connect: { timeout: 1000 }, headersTimeout: 5000, bodyTimeout: 5000, keepAliveTimeout: 4000 });

/** node:crypto's HMAC, as the sender signs with (and as a hand-written loop would). */
const nativeHmac = (key, message) => createHmac('sha256', key).update(message).digest();

/** `m`: topic, secret, version; `webhookId`: the event's id (the receiver keys its receipts on it). */
export const deliveryHeaders = (b, m, webhookId = `bare-${randomUUID()}`, triggeredAt = new Date()) => ({
  'content-type': 'application/json',
  'x-platform-topic': m.topic,
  'x-platform-hmac-sha256': signWebhookBody(b, m.secret, nativeHmac),
  'x-platform-shop-domain': 'bench.localhost',
  'x-platform-shop-id': '1',
  'x-platform-merchant-id': '1',
  'x-platform-api-version': m.version,
  'x-platform-webhook-id': webhookId,
  'x-platform-triggered-at': formatInZone(triggeredAt, 'Asia/Shanghai'),
});
