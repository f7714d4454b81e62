import { randomBytes } from 'node:crypto';
import type { Db } from '@platform/db';
import { formatInZone, signWebhookBody } from '@platform/domain';
import type { Logger } from 'pino';
import { claimDue, loadClaimed, releaseClaims, type ClaimedDelivery } from './claim';
import type { SenderClock } from './clock';
import type { SenderConfig } from './config';
import type { AttemptResult, DeliveryAgent } from './deliver';
import type { SenderMetrics } from './metrics';
import { failWithoutAttempt, recordAttempt, SUBSCRIPTION_DELETED, SUBSCRIPTION_DISABLED } from './record';
import { decideOutcome } from './schedule';

export interface SenderDeps {
  db: Db;
  config: SenderConfig;
  clock: SenderClock;
  agent: DeliveryAgent;
  metrics: SenderMetrics;
  logger: Logger;
}

export interface Sender {
  readonly id: string;
  /** Starts claiming; resolves when the loop has stopped (after stop()). */
  run(): Promise<void>;
  /** Stops claiming and waits for the attempts in flight to be recorded (decisions §11.6, SIGTERM). */
  stop(): Promise<void>;
  inFlight(): number;
}

/** The receiving host of an address: concurrency is bounded per host (decisions §11.7). */
function hostOf(address: string | null): string {
  if (!address) return '';
  try {
    return new URL(address).host.toLowerCase();
  } catch {
    return address;
  }
}

/** The headers of decisions §11.3: Content-Type, the seven of the spec, and X-Platform-Triggered-At. */
export function webhookHeaders(d: ClaimedDelivery, baseDomain: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-platform-topic': d.topic,
    'x-platform-hmac-sha256': signWebhookBody(Buffer.from(d.body, 'utf8'), d.appSecret ?? ''),
    'x-platform-shop-domain': `${d.handle ?? ''}.${baseDomain}`,
    'x-platform-shop-id': d.storeId.toString(),
    'x-platform-merchant-id': (d.merchantId ?? '').toString(),
    'x-platform-api-version': d.apiVersion,
    'x-platform-webhook-id': d.webhookId,
    'x-platform-triggered-at': formatInZone(d.triggeredAt, d.ianaTimezone ?? 'UTC'),
  };
}

export function createSender(deps: SenderDeps): Sender {
  const { db, config, clock, agent, metrics, logger } = deps;
  const id = `${process.pid}-${randomBytes(6).toString('hex')}`;
  let claimSeq = 0;
  let stopping = false;
  const running = new Set<Promise<void>>();
  const hostInFlight = new Map<string, number>();
  // subscription -> host, learned from claimed deliveries; lets a claim skip saturated hosts.
  const subscriptionHost = new Map<bigint, string>();
  let wake: (() => void) | undefined;
  let loop: Promise<void> | undefined;

  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = undefined;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  function saturatedSubscriptions(): bigint[] {
    const out: bigint[] = [];
    for (const [sub, host] of subscriptionHost) if ((hostInFlight.get(host) ?? 0) >= config.perHost) out.push(sub);
    return out;
  }

  async function attempt(d: ClaimedDelivery, owner: string, host: string): Promise<void> {
    const number = d.attempts + 1;
    const startedAt = clock.now();
    const end = metrics.attemptSeconds.startTimer();
    let result: AttemptResult;
    if (!d.appSecret || d.handle === null) {
      result = { ok: false, status: null, durationMs: 0, error: 'the app or store no longer exists', responseBody: null, retryAfter: undefined };
    } else {
      result = await agent.post(d.address!, d.body, webhookHeaders(d, config.baseDomain));
    }
    end();
    metrics.attempts.inc({ result: result.ok ? 'success' : result.status === null ? 'network' : 'http_error' });
    const now = clock.now();
    const outcome = decideOutcome(result, number, now);
    let recorded;
    try {
      recorded = await recordAttempt(db, {
        deliveryId: d.id,
        subscriptionId: d.subscriptionId,
        owner,
        attempt: number,
        startedAt,
        result,
        outcome,
        now,
      });
    } catch (error) {
      // The claim stays until it expires; another sender (or this one) tries again: at least once.
      logger.error({ err: error, webhookId: d.webhookId, deliveryId: d.id.toString() }, 'webhook attempt could not be recorded');
      return;
    }
    metrics.deliveries.inc({ outcome: outcome.kind });
    logger.info(
      {
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
      logger.warn({ subscriptionId: d.subscriptionId.toString(), reason: recorded.disabled }, 'webhook subscription disabled');
    }
  }

  function start(d: ClaimedDelivery, owner: string): void {
    const host = hostOf(d.address);
    subscriptionHost.set(d.subscriptionId, host);
    hostInFlight.set(host, (hostInFlight.get(host) ?? 0) + 1);
    metrics.inFlight.inc();
    const task = attempt(d, owner, host)
      .catch((error: unknown) => logger.error({ err: error }, 'webhook attempt crashed'))
      .finally(() => {
        const left = (hostInFlight.get(host) ?? 1) - 1;
        if (left <= 0) hostInFlight.delete(host);
        else hostInFlight.set(host, left);
        metrics.inFlight.dec();
        running.delete(task);
        poke();
      });
    running.add(task);
  }

  /** One claim: returns how many deliveries it started or settled (0: nothing it could take). */
  async function claimOnce(): Promise<number> {
    const free = Math.min(config.maxInFlight - running.size, config.batchSize);
    if (free <= 0) return 0;
    await clock.sync();
    const owner = `${id}:${++claimSeq}`;
    const ids = await claimDue(db, {
      now: clock.now(),
      realNow: new Date(),
      leaseMs: config.leaseMs,
      owner,
      limit: free,
      perSubscription: config.perHost,
      exclude: saturatedSubscriptions(),
    });
    if (ids.length === 0) return 0;
    const claimed = await loadClaimed(db, ids, owner);
    const excess: bigint[] = [];
    let handled = 0;
    for (const d of claimed) {
      if (d.subscriptionStatus !== 'enabled') {
        const reason = d.subscriptionStatus === null ? SUBSCRIPTION_DELETED : SUBSCRIPTION_DISABLED;
        if (await failWithoutAttempt(db, d.id, owner, reason, clock.now())) {
          metrics.deliveries.inc({ outcome: 'failed' });
          handled++;
          logger.info({ webhookId: d.webhookId, deliveryId: d.id.toString(), reason }, 'webhook delivery failed without an attempt');
        }
        continue;
      }
      const host = hostOf(d.address);
      if (stopping || (hostInFlight.get(host) ?? 0) >= config.perHost) {
        excess.push(d.id);
        continue;
      }
      start(d, owner);
      handled++;
    }
    // Claimed but over a host's limit (several subscriptions on one host): given back at once.
    if (excess.length > 0) await releaseClaims(db, excess, owner);
    return handled;
  }

  async function runLoop(): Promise<void> {
    let failures = 0;
    while (!stopping) {
      if (running.size >= config.maxInFlight) {
        await pause(config.pollMs);
        continue;
      }
      try {
        const n = await claimOnce();
        failures = 0;
        if (n === 0 && !stopping) await pause(config.pollMs);
      } catch (error) {
        // e.g. the tables are not there yet (the API migrates at start) or the database is down.
        failures++;
        if (failures === 1 || failures % 50 === 0) logger.warn({ err: error, failures }, 'webhook claim failed; retrying');
        if (!stopping) await pause(Math.min(5000, config.pollMs * 2 ** Math.min(failures, 6)));
      }
    }
  }

  return {
    id,
    run() {
      loop ??= runLoop();
      return loop;
    },
    async stop() {
      stopping = true;
      poke();
      await loop;
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    inFlight: () => running.size,
  };
}
