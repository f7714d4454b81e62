import { randomBytes } from 'node:crypto';
import { watchOutbox, type OutboxWatch } from '@platform/db';
import { receivingHost } from '@platform/domain/webhooks';
import type { Logger } from 'pino';
import { runAttempt, type AttemptDeps } from './attempt';
import { claimDue, type ClaimState, type OwnShare } from './claim';
import { heldCap, HOLD_PER_SLOT, holdPerSlotOf, oldestDueOf, type Held, type Share } from './hold';
import { firstFreeDue, nextDueAt, releaseClaim, traceOf, type ClaimedDelivery } from './claimed';
import type { SenderClock } from './clock';
import type { SenderConfig } from './config';
import type { DeliveryAgent } from './deliver';
import type { SenderMetrics } from './metrics';
import { startMaintenance, type Maintenance } from './retention';
import { failWithoutAttempt, SUBSCRIPTION_DELETED, SUBSCRIPTION_DISABLED, type SlotTransfer } from './record';
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
  /** Stops claiming, gives back held deliveries, and waits for the attempts in flight to be recorded (decisions §11.6, SIGTERM). */
  stop(): Promise<void>;
  inFlight(): number;
  /** The counts' fold and a retention pass now (retention.ts); undefined before run(). */
  maintenance(): Maintenance | undefined;
}

/** Settles from outside: `settle()` resolves `promise`. */
function deferred(): { promise: Promise<void>; settle: () => void } {
  let settle: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (settle = resolve));
  return { promise, settle };
}

/**
 * The sender's loop (docs/webhooks-sender.md): a claim runs when deliveries were committed (the
 * outbox's wake), when an attempt of its own ended without a held delivery to take its slot (the
 * slot is free again: slotFreed) or with few held left, at once again when a claim could have taken more,
 * when the next pending delivery falls due, and otherwise every `pollMs` (the safety net for a lost
 * wake). Claims never overlap; a wake during a claim runs one more claim after it.
 */
export function createSender(deps: SenderDeps): Sender {
  const { sql, config, clock, metrics, logger } = deps;
  const attemptDeps: AttemptDeps = { ...deps, baseDomain: config.baseDomain };
  const id = `${process.pid}-${randomBytes(6).toString('hex')}`;
  const caps = { perHost: config.perHost, perApp: config.perApp };
  const cursor: ClaimState = { after: 0n };
  const running = new Set<Promise<void>>();
  const shares = new Map<bigint, Share>();
  const listening = deferred();
  const firstClaim = deferred();
  const stopped = deferred();
  let held = 0;
  /** the claimed bodies' average length (a moving average; 0: none claimed yet): heldCap */
  let bodyBytes = 0;
  let claimSeq = 0;
  let stopping = false;
  let claiming: Promise<void> | undefined;
  let again = false;
  /** the last claim left due deliveries behind (slotFreed) */
  let leftBehind = true;
  /** a slot was freed while a claim was under way */
  let freedDuringClaim = false;
  /** Shares that asked for a claim during one because their held deliveries ran low: the next claim only if still low. */
  const low = new Set<Share>();
  /**
   * The last claim found nothing to take and left nothing behind: nothing is due now, so a share
   * still low waits for new work's own wake (the outbox's, or its due time) rather than claiming
   * again at once. (Held ones running down after a backlog's last claim asked a claim after every
   * claim: about 60 claims that found nothing at the end of a 4,000-delivery drain, bench/webhooks
   * 2026-12-03.)
   */
  let foundNothing = false;
  let timer: NodeJS.Timeout | undefined;
  let polled = false;
  let failures = 0;
  let watch: OutboxWatch | undefined;
  let loop: Promise<void> | undefined;
  let maintenance: Maintenance | undefined;

  const shareOf = (subscriptionId: bigint): Share => {
    let share = shares.get(subscriptionId);
    if (!share) shares.set(subscriptionId, (share = { sending: 0, running: 0, held: [], answerMs: 0 }));
    return share;
  };
  const forget = (subscriptionId: bigint, share: Share) => {
    if (share.running === 0 && share.held.length === 0) shares.delete(subscriptionId);
  };
  // Enough of its claim left for a whole attempt, or another sender could take it over in flight.
  const lastsAnAttempt = (leaseEnds: number) => leaseEnds - Date.now() >= config.timeoutMs + 500;
  const holdsOutlast = config.leaseMs > 2 * config.timeoutMs;

  function wake(): void {
    if (stopping) return;
    if (claiming) {
      again = true;
      return;
    }
    clearTimeout(timer);
    timer = undefined;
    freedDuringClaim = false;
    claiming = claimRound().finally(() => {
      claiming = undefined;
      firstClaim.settle();
      const stillLow = !foundNothing && [...low].some(runsLow);
      low.clear();
      if (again || stillLow || (freedDuringClaim && leftBehind)) {
        again = false;
        wake();
      }
    });
  }

  /**
   * An attempt's slot was freed (its record committed): a claim, when the last one left due
   * deliveries behind for want of slots (one ending meanwhile asks the claim under way), or when
   * the delivery is due again later (the next wake-up is set for its time). Otherwise nothing is
   * waiting: a claim would find nothing, its round trips for nothing, and the next claim that finds
   * work would wait for it (docs/webhooks-sender.md, "Waking").
   */
  function slotFreed(retry: boolean): void {
    if (retry) wake();
    else if (claiming) freedDuringClaim = true;
    else if (leftBehind) wake();
  }

  /** Fewer held than half of its number per slot: time to claim more before the slots run dry (a claim takes a few milliseconds). */
  const runsLow = (share: Share) => share.held.length < (holdPerSlotOf(share) / 2) * share.sending;

  /** A claim for a share whose held deliveries run low (unless the last one found nothing due); one already under way may have refilled it. */
  function wakeWhenLow(share: Share): void {
    if (foundNothing) return;
    if (!claiming) wake();
    else low.add(share);
  }

  function sleep(ms: number): void {
    if (stopping) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      polled = true;
      wake();
    }, ms);
  }

  /** Woken by its timer with nothing of its own under way: is anything due at all? (one statement) */
  async function idlePoll(): Promise<boolean> {
    if (!polled) return false;
    polled = false;
    if (running.size > 0 || held > 0 || config.clock === 'manual') return false;
    const first = await firstFreeDue(sql, new Date(), config.leaseMs);
    const wait = first ? first.getTime() - clock.now().getTime() : config.pollMs;
    if (wait <= 0) return false;
    sleep(Math.min(config.pollMs, wait));
    return true;
  }

  /** Nothing more to claim now: until the next pending delivery is due, at most pollMs (`known`: the claim read it). */
  async function idleWait(known: Date | null | undefined): Promise<number> {
    // On the manual clock due times move when the clock is moved: a move through the API wakes the
    // sender, one written to the database some other way only the poll sees.
    if (config.clock === 'manual') return config.pollMs;
    const next = known === undefined ? await nextDueAt(sql, clock.now()) : known;
    return next ? Math.max(1, Math.min(config.pollMs, next.getTime() - clock.now().getTime())) : config.pollMs;
  }

  async function claimRound(): Promise<void> {
    foundNothing = false;
    try {
      // At its own limit the sender waits for an attempt to end (that wakes it), and polls as a
      // safety net: the attempt that ends last may belong to a subscription with nothing held while
      // another's held deliveries wait for a claim to give them slots (seen as a sender idle with
      // work due, when records were slow and attempts piled up waiting for them).
      const budget = Math.min(config.maxInFlight - running.size, config.batchSize);
      // A held claim is given back once it has less than two attempts' time left (releaseExpiring):
      // a lease not longer than that (PLATFORM_SENDER_LEASE_MS from 6 s) would be claimed only to be
      // released at the next round, two writes a delivery for nothing, round after round.
      const holdBudget = holdsOutlast ? Math.max(0, heldCap(config.maxInFlight, bodyBytes) - held) : 0;
      if (budget <= 0 && holdBudget <= 0) {
        leftBehind = true; // not read: the next attempt to end claims
        sleep(config.pollMs);
        return;
      }
      if (await idlePoll()) return;
      await clock.sync();
      const owner = `${id}:${++claimSeq}`;
      await releaseExpiring();
      const request = {
        now: clock.now(),
        realNow: new Date(),
        leaseMs: config.leaseMs,
        owner,
        caps,
        budget,
        own: ownShares(),
        holdPerSlot: HOLD_PER_SLOT,
        holdBudget,
      };
      const claimed = await claimDue(sql, request, cursor);
      if (claimed.differs)
        logger.error(claimed.differs, 'webhook claim: the lone claim differs from planClaims (a fault: please report it)');
      leftBehind = claimed.leftBehind;
      foundNothing = claimed.ids.length === 0 && claimed.promoted.length === 0 && !claimed.leftBehind && !claimed.more;
      failures = 0;
      startPromoted(claimed.promoted);
      if (claimed.ids.length > 0) await take(claimed.rows, owner, claimed.leaseUntil.getTime());
      if (claimed.more) again = true;
      else sleep(await idleWait(claimed.nextDue));
    } catch (error) {
      // e.g. the tables are not there yet (the API migrates at start) or the database is down.
      leftBehind = true;
      failures++;
      if (failures === 1 || failures % 50 === 0) logger.warn({ err: error, failures }, 'webhook claim failed; retrying');
      sleep(Math.min(5000, 50 * 2 ** Math.min(failures, 7)));
    }
  }

  function ownShares(): Map<bigint, OwnShare> {
    const own = new Map<bigint, OwnShare>();
    for (const [sub, share] of shares) {
      const first = share.held[0]?.d;
      own.set(sub, {
        running: share.sending,
        // a copy of the list (attempts ending during the claim take from it), not of each entry
        held: share.held.slice(),
        appId: first?.appId ?? 0n,
        host: first?.address ? receivingHost(first.address) : '',
        oldestDue: oldestDueOf(share.held),
        holdPerSlot: holdPerSlotOf(share),
      });
    }
    return own;
  }

  /** Held deliveries whose claims now count (a claim gave their subscription a slot): started. */
  function startPromoted(ids: readonly bigint[]): void {
    const wanted = new Set(ids);
    for (const share of shares.values()) {
      for (let i = 0; i < share.held.length && wanted.size > 0;) {
        const h = share.held[i]!;
        if (!wanted.delete(h.d.id)) {
          i++;
          continue;
        }
        share.held.splice(i, 1);
        held--;
        start(h, receivingHost(h.d.address ?? ''));
      }
    }
  }

  /** Held deliveries whose claims would run out before a slot came: given back for any sender to take. */
  async function releaseExpiring(): Promise<void> {
    for (const share of shares.values()) {
      const expiring = share.held.filter((h) => h.leaseEnds - Date.now() < 2 * config.timeoutMs);
      if (expiring.length === 0) continue;
      share.held = share.held.filter((h) => !expiring.includes(h));
      await release(expiring);
    }
  }

  /** Claimed deliveries: failed at once when their subscription is gone or disabled, started when counted, else held. */
  async function take(claimed: ClaimedDelivery[], owner: string, leaseEnds: number): Promise<void> {
    for (const d of claimed) {
      bodyBytes = bodyBytes <= 0 ? d.body.length : bodyBytes + (d.body.length - bodyBytes) / 64;
      if (d.subscriptionStatus !== 'enabled') {
        const reason = d.subscriptionStatus === null ? SUBSCRIPTION_DELETED : SUBSCRIPTION_DISABLED;
        if (await failWithoutAttempt(sql, d.id, owner, reason, clock.now())) {
          metrics.deliveries.inc({ outcome: 'failed' });
          logger.info(
            { ...traceOf(d), webhookId: d.webhookId, deliveryId: d.id.toString(), reason },
            'webhook delivery failed without an attempt',
          );
        }
      } else if (d.leaseHost !== null) {
        start({ d, id: d.id, owner, leaseEnds }, d.leaseHost);
      } else {
        shareOf(d.subscriptionId).held.push({ d, id: d.id, owner, leaseEnds });
        held++;
      }
    }
  }

  async function release(list: Held[]): Promise<void> {
    for (const h of list) {
      held--;
      await releaseClaim(sql, h.d.id, h.owner).catch(() => undefined);
    }
  }

  /**
   * When an attempt of the subscription ends: its next held delivery starts in the slot, and the
   * record moves the count to it. Not while stopping, and only while both claims outlast an attempt.
   */
  function handOver(ended: Held, host: string): SlotTransfer | undefined {
    const share = shares.get(ended.d.subscriptionId);
    if (!share || stopping || !lastsAnAttempt(ended.leaseEnds)) return undefined;
    while (share.held.length > 0) {
      const next = share.held.shift()!;
      held--;
      if (!lastsAnAttempt(next.leaseEnds)) {
        void releaseClaim(sql, next.d.id, next.owner).catch(() => undefined);
        continue;
      }
      start(next, host);
      // Checked here, when the answer comes in, not after the record (a group commit later: at a
      // few thousand a second the held ones ran dry waiting for it, every slot idle for a claim).
      if (runsLow(share)) wakeWhenLow(share);
      return { id: next.d.id, owner: next.owner, host };
    }
    return undefined;
  }

  function start(claim: Held, host: string): void {
    const share = shareOf(claim.d.subscriptionId);
    share.running++;
    share.sending++;
    let answered = false;
    const sentAt = performance.now();
    const freeSlot = () => {
      if (answered) return;
      answered = true;
      share.sending--;
      const took = performance.now() - sentAt;
      share.answerMs = share.answerMs <= 0 ? took : share.answerMs + (took - share.answerMs) / 32;
    };
    metrics.inFlight.inc();
    // One async function rather than then/catch/finally: two promises and closures fewer a delivery.
    const attempt = async (): Promise<void> => {
      try {
        const { handedOver, retry } = await runAttempt(attemptDeps, claim.d, claim.owner, host, () => {
          freeSlot();
          return handOver(claim, host);
        });
        // Its slot is free once its record has committed (the count drops there): the next claim hands it out.
        if (!handedOver) slotFreed(retry);
      } catch (error) {
        logger.error({ err: error }, 'webhook attempt crashed');
      } finally {
        freeSlot();
        share.running--;
        forget(claim.d.subscriptionId, share);
        metrics.inFlight.dec();
        running.delete(task);
        // Held deliveries with nothing in flight to take over from: the next claim gives them slots.
        if (share.sending === 0 && share.held.length > 0) wake();
      }
    };
    const task = attempt();
    running.add(task);
  }

  return {
    id,
    ready: Promise.all([listening.promise, firstClaim.promise]).then(() => undefined),
    run() {
      if (!loop) {
        watch = watchOutbox(sql.db.url, wake, (message, error) => logger.warn({ err: error }, message));
        void watch.ready.then(listening.settle);
        maintenance = startMaintenance({
          sql,
          clock,
          logger,
          settings: { ageMs: config.retentionMs, batch: config.retentionBatch, everyMs: config.maintenanceMs },
        });
        wake();
        loop = stopped.promise;
      }
      return loop;
    },
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await watch?.close();
      await maintenance?.close();
      await claiming;
      // Held deliveries go back at once, so another sender takes them without waiting for their claims to expire.
      for (const share of shares.values()) await release(share.held.splice(0));
      while (running.size > 0) await Promise.allSettled([...running]);
      stopped.settle();
    },
    inFlight: () => running.size,
    maintenance: () => maintenance,
  };
}
