import { createHmac } from 'node:crypto';
import { signWebhookBodyHex, type HmacSha256Hex } from '@platform/domain/signing';
import { formatInZone } from '@platform/domain/time';
import type { Logger } from 'pino';
import { traceOf, type ClaimedDelivery } from './claimed';
import type { SenderClock } from './clock';
import type { AttemptResult, DeliveryAgent } from './deliver';
import type { SenderMetrics } from './metrics';
import { recordAttempt, type SlotTransfer } from './record';
import { decideOutcome } from './schedule';
import type { Sql } from './sql';

/** node:crypto's HMAC for the signature, hex encoded natively (the rule is the domain's; native is about four times as fast). */
const nativeHmacHex: HmacSha256Hex = (key, message) => createHmac('sha256', key).update(message).digest('hex');

/** The headers of decisions §11.3: Content-Type, the seven of the spec, and X-Platform-Triggered-At. */
export function webhookHeaders(d: ClaimedDelivery, baseDomain: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-platform-topic': d.topic,
    'x-platform-hmac-sha256': signWebhookBodyHex(d.body, d.appSecret ?? '', nativeHmacHex),
    'x-platform-shop-domain': `${d.handle ?? ''}.${baseDomain}`,
    'x-platform-shop-id': d.storeId.toString(),
    'x-platform-merchant-id': (d.merchantId ?? '').toString(),
    'x-platform-api-version': d.apiVersion,
    'x-platform-webhook-id': d.webhookId,
    'x-platform-triggered-at': formatInZone(d.triggeredAt, d.ianaTimezone ?? 'UTC'),
  };
}

export interface AttemptDeps {
  sql: Sql;
  clock: SenderClock;
  agent: DeliveryAgent;
  metrics: SenderMetrics;
  logger: Logger;
  baseDomain: string;
}

/**
 * One attempt of a claimed delivery (decisions §11.3-§11.6): sign, POST, decide the outcome, record
 * it, log one line. `handOver` runs as soon as the answer is in, before the record: it may start a
 * held delivery in this attempt's slot and name it, so the record moves the claim's count to it.
 * Never throws for the receiver's sake; a record that fails is logged and the claim left to expire
 * (at least once). `retry`: the delivery is due again later (or its record failed).
 */
export async function runAttempt(
  deps: AttemptDeps,
  d: ClaimedDelivery,
  owner: string,
  host: string,
  handOver: () => SlotTransfer | undefined,
): Promise<{ handedOver: boolean; retry: boolean }> {
  const { sql, clock, agent, metrics, logger } = deps;
  const number = d.attempts + 1;
  const startedAt = clock.now();
  // (performance.now, not the histogram's startTimer: its two hrtime arrays, closure and label copy are for every delivery)
  const sentAt = performance.now();
  let result: AttemptResult;
  if (!d.appSecret || d.handle === null) {
    result = {
      ok: false,
      status: null,
      durationMs: 0,
      error: 'the app or store no longer exists',
      responseBody: null,
      retryAfter: undefined,
    };
  } else {
    result = await agent.post(d.address!, d.body, webhookHeaders(d, deps.baseDomain));
  }
  metrics.attemptSeconds.observe((performance.now() - sentAt) / 1000);
  const transfer = handOver();
  metrics.attempts.inc({ result: result.ok ? 'success' : result.status === null ? 'network' : 'http_error' });
  const now = clock.now();
  const outcome = decideOutcome(result, number, now);
  let recorded;
  try {
    recorded = await recordAttempt(sql, {
      deliveryId: d.id,
      subscriptionId: d.subscriptionId,
      owner,
      attempt: number,
      startedAt,
      result,
      outcome,
      now,
      transfer,
    });
  } catch (error) {
    // The claim stays until it expires; another sender (or this one) tries again: at least once.
    logger.error(
      { err: error, ...traceOf(d), webhookId: d.webhookId, deliveryId: d.id.toString() },
      'webhook attempt could not be recorded',
    );
    return { handedOver: transfer !== undefined, retry: true };
  }
  metrics.deliveries.inc({ outcome: outcome.kind });
  // The line's fields are gathered only when it is written (LOG_LEVEL=warn skips it).
  if (logger.isLevelEnabled('info'))
    logger.info(
      {
        ...traceOf(d),
        webhookId: d.webhookId,
        deliveryId: d.id.toString(),
        subscriptionId: d.subscriptionId.toString(),
        topic: d.topic,
        host,
        attempt: number,
        status: result.status,
        durationMs: result.durationMs,
        outcome: outcome.kind,
        ...(outcome.kind === 'retry' ? { nextAttemptAt: outcome.nextAttemptAt.toISOString() } : {}),
        ...(result.error ? { error: result.error } : {}),
        ...(recorded.written ? {} : { leaseLost: true }),
      },
      'webhook attempt',
    );
  if (recorded.disabled) {
    logger.warn({ ...traceOf(d), subscriptionId: d.subscriptionId.toString(), reason: recorded.disabled }, 'webhook subscription disabled');
  }
  return { handedOver: transfer !== undefined, retry: outcome.kind === 'retry' };
}
