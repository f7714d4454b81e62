import { randomBytes } from 'node:crypto';
import { watchOutbox, type OutboxWatch } from '@platform/db';
import { formatInZone, signWebhookBody } from '@platform/domain';
import type { Logger } from 'pino';
import { claimDue, loadClaimed, nextDueAt, releaseClaim, type ClaimedDelivery, type WalkCursor } from './claim';
import type { SenderClock } from './clock';
import type { SenderConfig } from './config';
import type { AttemptResult, DeliveryAgent } from './deliver';
import type { SenderMetrics } from './metrics';
import { failWithoutAttempt, recordAttempt, SUBSCRIPTION_DELETED, SUBSCRIPTION_DISABLED } from './record';
import { decideOutcome } from './schedule';
import type { Sql } from './sql';

export interface SenderDeps {
  sql: Sql;
  config: SenderConfig;
  clock: SenderClock;
  agent: DeliveryAgent;
  metrics: SenderMetrics;
  logger: Logger;
}

export interface Sender {
  readonly id: string;
  /** Resolves once the sender is listening for commits and has made its first claim. */
  readonly ready: Promise<void>;
  /** Starts claiming; resolves when the loop has stopped (after stop()). */
  run(): Promise<void>;
  /** Stops claiming and waits for the attempts in flight to be recorded (decisions §11.6, SIGTERM). */
  stop(): Promise<void>;
  inFlight(): number;
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

/** Settles from outside: `settle()` resolves `promise`. */
function deferred(): { promise: Promise<void>; settle: () => void } {
  let settle: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (settle = resolve));
  return { promise, settle };
}

/**
 * The sender's loop (docs/webhooks-sender.md): a claim runs when deliveries were committed (the
 * outbox's wake), when an attempt of its own has been recorded (its slot is free again), at once
 * again when a claim could have taken more, when the next pending delivery falls due, and otherwise
 * every `pollMs` (the safety net for a lost wake). Claims never overlap; a wake during a claim runs
 * one more claim after it.
 */
export function createSender(deps: SenderDeps): Sender {
  const { sql, config, clock, agent, metrics, logger } = deps;
  const id = `${process.pid}-${randomBytes(6).toString('hex')}`;
  const caps = { perHost: config.perHost, perApp: config.perApp };
  const cursor: WalkCursor = { after: 0n };
  const running = new Set<Promise<void>>();
  const listening = deferred();
  const firstClaim = deferred();
  const stopped = deferred();
  let claimSeq = 0;
  let stopping = false;
  let claiming: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  let watch: OutboxWatch | undefined;
  let loop: Promise<void> | undefined;

  function wake(): void {
    if (stopping) return;
    if (claiming) {
      again = true;
      return;
    }
    clearTimeout(timer);
    timer = undefined;
    claiming = claimRound().finally(() => {
      claiming = undefined;
      firstClaim.settle();
      if (again) {
        again = false;
        wake();
      }
    });
  }

  function sleep(ms: number): void {
    if (stopping) return;
    clearTimeout(timer);
    timer = setTimeout(wake, ms);
  }

  /** Nothing more to claim now: until the next pending delivery is due, at most pollMs. */
  async function idleWait(): Promise<number> {
    // On the manual clock due times move when the clock is moved, which only the poll sees.
    if (config.clock === 'manual') return config.pollMs;
    const next = await nextDueAt(sql, clock.now());
    return next ? Math.max(1, Math.min(config.pollMs, next.getTime() - clock.now().getTime())) : config.pollMs;
  }

  async function claimRound(): Promise<void> {
    try {
      // At its own limit the sender waits for an attempt to finish (that wakes it).
      const budget = Math.min(config.maxInFlight - running.size, config.batchSize);
      if (budget <= 0) return;
      await clock.sync();
      const owner = `${id}:${++claimSeq}`;
      const claimed = await claimDue(sql, { now: clock.now(), realNow: new Date(), leaseMs: config.leaseMs, owner, caps, budget }, cursor);
      failures = 0;
      if (claimed.ids.length > 0) await startClaimed(await loadClaimed(sql, claimed.ids, owner), owner);
      if (claimed.more) again = true;
      else sleep(await idleWait());
    } catch (error) {
      // e.g. the tables are not there yet (the API migrates at start) or the database is down.
      failures++;
      if (failures === 1 || failures % 50 === 0) logger.warn({ err: error, failures }, 'webhook claim failed; retrying');
      sleep(Math.min(5000, 50 * 2 ** Math.min(failures, 7)));
    }
  }

  /** Claimed deliveries: failed at once when their subscription is gone or disabled, else sent. */
  async function startClaimed(claimed: ClaimedDelivery[], owner: string): Promise<void> {
    for (const d of claimed) {
      if (d.subscriptionStatus !== 'enabled') {
        const reason = d.subscriptionStatus === null ? SUBSCRIPTION_DELETED : SUBSCRIPTION_DISABLED;
        if (await failWithoutAttempt(sql, d.id, owner, reason, clock.now())) {
          metrics.deliveries.inc({ outcome: 'failed' });
          logger.info({ webhookId: d.webhookId, deliveryId: d.id.toString(), reason }, 'webhook delivery failed without an attempt');
        }
      } else if (d.leaseHost === null) {
        // Re-enabled between the claim and this read: claimed outside the caps, so not sent on
        // this claim; the next one counts it.
        await releaseClaim(sql, d.id, owner);
        again = true;
      } else {
        start(d, owner, d.leaseHost);
      }
    }
  }

  function start(d: ClaimedDelivery, owner: string, host: string): void {
    metrics.inFlight.inc();
    const task = attempt(d, owner, host)
      .catch((error: unknown) => logger.error({ err: error }, 'webhook attempt crashed'))
      .finally(() => {
        metrics.inFlight.dec();
        running.delete(task);
        // Recorded: its claim (and so its slot of the host's and the app's) is free for the next claim.
        wake();
      });
    running.add(task);
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
      recorded = await recordAttempt(sql, {
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

  return {
    id,
    ready: Promise.all([listening.promise, firstClaim.promise]).then(() => undefined),
    run() {
      if (!loop) {
        watch = watchOutbox(sql.db.url, wake, (message, error) => logger.warn({ err: error }, message));
        void watch.ready.then(listening.settle);
        wake();
        loop = stopped.promise;
      }
      return loop;
    },
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await watch?.close();
      await claiming;
      while (running.size > 0) await Promise.allSettled([...running]);
      stopped.settle();
    },
    inFlight: () => running.size,
  };
}
