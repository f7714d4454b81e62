import { randomBytes } from 'node:crypto';
import { formatInZone, signWebhookBody } from '@platform/domain';
import type { Logger } from 'pino';
import { claimDue, claimDueOfSubscription, loadClaimed, releaseClaims, type ClaimedDelivery } from './claim';
import type { SenderClock } from './clock';
import type { SenderConfig } from './config';
import type { AttemptResult, DeliveryAgent } from './deliver';
import type { SenderMetrics } from './metrics';
import { failWithoutAttempt, recordAttempt, SUBSCRIPTION_DELETED, SUBSCRIPTION_DISABLED } from './record';
import { decideOutcome } from './schedule';
import type { Sql } from './sql';

/** Least time between two claims woken by finished attempts. */
const CLAIM_GAP_MS = 5;

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
  const { sql, config, clock, agent, metrics, logger } = deps;
  const id = `${process.pid}-${randomBytes(6).toString('hex')}`;
  let claimSeq = 0;
  let stopping = false;
  const running = new Set<Promise<void>>();
  const hostInFlight = new Map<string, number>();
  const waiting = new Map<string, { d: ClaimedDelivery; owner: string; leaseEnds: number }[]>();
  let heldCount = 0;
  // Hosts whose subscriptions a claim skipped (saturated) or whose last refill was full: they
  // likely have more due, so a slot they free is refilled from their own subscriptions at once.
  const hostHasMore = new Set<string>();
  const refilling = new Set<string>();
  const refills = new Set<Promise<void>>();
  let rotation = 0;
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

  /** Subscriptions whose host has its limit in flight or held already: a claim skips them. */
  function saturatedSubscriptions(): bigint[] {
    const out: bigint[] = [];
    for (const [sub, host] of subscriptionHost) {
      if ((hostInFlight.get(host) ?? 0) + (waiting.get(host)?.length ?? 0) >= config.perHost) out.push(sub);
    }
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

  /** Claimed, waiting for a slot of its host; its claim lasts until `leaseEnds` (real time). */
  interface Held {
    d: ClaimedDelivery;
    owner: string;
    leaseEnds: number;
  }

  function start(held: Held, host: string): void {
    hostInFlight.set(host, (hostInFlight.get(host) ?? 0) + 1);
    metrics.inFlight.inc();
    const task = attempt(held.d, held.owner, host)
      .catch((error: unknown) => logger.error({ err: error }, 'webhook attempt crashed'))
      .finally(() => {
        const left = (hostInFlight.get(host) ?? 1) - 1;
        if (left <= 0) hostInFlight.delete(host);
        else hostInFlight.set(host, left);
        metrics.inFlight.dec();
        running.delete(task);
        // The host's next held delivery takes the slot; with none held, a claim may find more for it.
        if (startHeld(host) || stopping) return;
        if (hostHasMore.has(host)) {
          const r = refill(host);
          refills.add(r);
          void r.finally(() => refills.delete(r));
        }
        else poke();
      });
    running.add(task);
  }

  /** Starts the host's next held delivery, if it has one and a free slot; false when none started. */
  function startHeld(host: string): boolean {
    const queue = waiting.get(host);
    while (queue && queue.length > 0 && !stopping && (hostInFlight.get(host) ?? 0) < config.perHost) {
      const held = queue.shift()!;
      heldCount--;
      if (queue.length === 0) waiting.delete(host);
      // Too little of the claim left for a whole attempt: give it back rather than risk a second
      // sender taking it over while it is in flight.
      if (held.leaseEnds - Date.now() < config.timeoutMs + 500) {
        void releaseClaims(sql, [held.d.id], held.owner).catch(() => undefined);
        continue;
      }
      start(held, host);
      return true;
    }
    return false;
  }

  /** One claim: returns how many deliveries it took (0: nothing it could take). */
  async function claimOnce(): Promise<number> {
    const free = Math.min(config.maxInFlight - running.size - heldCount, config.batchSize);
    if (free <= 0) return 0;
    await clock.sync();
    const owner = `${id}:${++claimSeq}`;
    const exclude = saturatedSubscriptions();
    for (const sub of exclude) hostHasMore.add(subscriptionHost.get(sub) ?? '');
    const claimedAt = Date.now();
    const ids = await claimDue(sql, {
      now: clock.now(),
      realNow: new Date(claimedAt),
      leaseMs: config.leaseMs,
      owner,
      limit: free,
      perSubscription: config.perHost,
      exclude,
    });
    if (ids.length === 0) return 0;
    await take(await loadClaimed(sql, ids, owner), owner, claimedAt);
    return ids.length;
  }

  /** Claimed deliveries: failed at once when their subscription is gone, else held for their host and started. */
  async function take(claimed: ClaimedDelivery[], owner: string, claimedAt: number): Promise<void> {
    for (const d of claimed) {
      if (d.subscriptionStatus !== 'enabled') {
        const reason = d.subscriptionStatus === null ? SUBSCRIPTION_DELETED : SUBSCRIPTION_DISABLED;
        if (await failWithoutAttempt(sql, d.id, owner, reason, clock.now())) {
          metrics.deliveries.inc({ outcome: 'failed' });
          logger.info({ webhookId: d.webhookId, deliveryId: d.id.toString(), reason }, 'webhook delivery failed without an attempt');
        }
        continue;
      }
      const host = hostOf(d.address);
      subscriptionHost.set(d.subscriptionId, host);
      // Over the host's limit (several subscriptions on one host): held here until a slot frees.
      const queue = waiting.get(host) ?? [];
      queue.push({ d, owner, leaseEnds: claimedAt + config.leaseMs });
      waiting.set(host, queue);
      heldCount++;
      startHeld(host);
      if ((hostInFlight.get(host) ?? 0) + queue.length >= config.perHost) hostHasMore.add(host);
    }
  }

  /** A slot of `host` freed while its subscriptions have more due: claim for them directly, round-robin. */
  async function refill(host: string): Promise<void> {
    if (refilling.has(host)) return;
    refilling.add(host);
    try {
      const subs = [...subscriptionHost].filter(([, h]) => h === host).map(([sub]) => sub);
      const offset = rotation++ % Math.max(subs.length, 1);
      const rotated = [...subs.slice(offset), ...subs.slice(0, offset)];
      // Up to the host's slots plus as many held behind them, so the next refill comes after a
      // round of attempts rather than after each one.
      let free = Math.min(
        2 * config.perHost - (hostInFlight.get(host) ?? 0) - (waiting.get(host)?.length ?? 0),
        config.maxInFlight - running.size - heldCount,
      );
      for (const sub of rotated) {
        if (free <= 0 || stopping) break;
        const owner = `${id}:${++claimSeq}`;
        const claimedAt = Date.now();
        const ids = await claimDueOfSubscription(sql, sub, { now: clock.now(), realNow: new Date(claimedAt), leaseMs: config.leaseMs, owner, limit: free });
        if (ids.length === 0) continue;
        free -= ids.length;
        await take(await loadClaimed(sql, ids, owner), owner, claimedAt);
      }
      if (free > 0) hostHasMore.delete(host);
    } catch (error) {
      logger.warn({ err: error, host }, 'webhook refill claim failed');
    } finally {
      refilling.delete(host);
    }
  }

  /** Gives back every held claim (SIGTERM): another sender takes them at once. */
  async function releaseHeld(): Promise<void> {
    for (const [host, queue] of waiting) {
      waiting.delete(host);
      for (const held of queue) await releaseClaims(sql, [held.d.id], held.owner).catch(() => undefined);
    }
    heldCount = 0;
  }

  async function runLoop(): Promise<void> {
    let failures = 0;
    while (!stopping) {
      if (running.size + heldCount >= config.maxInFlight) {
        await pause(config.pollMs);
        continue;
      }
      try {
        const n = await claimOnce();
        failures = 0;
        if (n === 0 && !stopping) {
          await pause(config.pollMs);
          // Woken by a finished attempt: let a few more finish first, so one claim serves them all
          // (a claim per attempt costs more than the attempt under a steady stream).
          if (!stopping) await new Promise((resolve) => setTimeout(resolve, Math.min(CLAIM_GAP_MS, config.pollMs)));
        }
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
      // A refill claiming right now must finish before the held deliveries are given back.
      while (refills.size > 0) await Promise.allSettled([...refills]);
      await releaseHeld();
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    inFlight: () => running.size,
  };
}
