// How many claimed deliveries a sender holds ready for its slots (docs/webhooks-sender.md), and its
// share of each subscription it works on (sender.ts).
import type { ClaimedDelivery } from './claimed';

/**
 * Deliveries held per slot of a subscription, ready to take the slot over (planClaims' `hold`): at
 * first and at least HOLD_PER_SLOT, else what a slot sends in HOLD_WINDOW_MS at the pace its
 * receiver answers, at most MAX_HOLD_PER_SLOT. A fast receiver's slots then go through a claim's worth
 * in that long: claims (a few milliseconds each, one at a time across senders) stay rare and the
 * held ones do not run dry meanwhile. 64 a slot for every receiver, PostgreSQL claimed about 130
 * deliveries every 10 ms, its slots ran dry about ten times a second and it sent at 52-55% of the
 * bare loop; with the window 65-79% (bench/webhooks, 2026-11-26). A slow receiver keeps 64. In all,
 * the sender holds at most heldCap.
 */
export const HOLD_PER_SLOT = 64;
const HOLD_WINDOW_MS = 250;
const MAX_HOLD_PER_SLOT = 256;
const MAX_EXTRA_HELD_BYTES = 64 * 1024 * 1024;

/**
 * How many deliveries the sender may hold in all: PLATFORM_SENDER_CONCURRENCY, and up to four times
 * that while the bodies it claims are small enough that the part beyond the first `concurrency`
 * stays within MAX_EXTRA_HELD_BYTES (their bodies are in memory: 64 MiB more at most than a sender
 * holding `concurrency` of them). `bodyBytes`: the claimed bodies' average length so far (0: none
 * claimed yet, then no more than `concurrency`), in characters (about bytes for JSON).
 */
export function heldCap(concurrency: number, bodyBytes: number): number {
  if (bodyBytes <= 0) return concurrency;
  const extra = Math.min(3 * concurrency, Math.floor(MAX_EXTRA_HELD_BYTES / bodyBytes));
  return concurrency + extra;
}

/** Deliveries to hold per slot of a subscription whose POSTs are answered in `answerMs` on average (0: none answered yet). */
export function holdPerSlotFor(answerMs: number): number {
  if (answerMs <= 0) return HOLD_PER_SLOT;
  return Math.max(HOLD_PER_SLOT, Math.min(MAX_HOLD_PER_SLOT, Math.round(HOLD_WINDOW_MS / answerMs)));
}

/** A claimed delivery, held until an attempt of its subscription ends; its claim lasts until `leaseEnds` (real time). */
export interface Held {
  d: ClaimedDelivery;
  /** d.id (so a claim takes the held list as it is: OwnShare.held) */
  id: bigint;
  owner: string;
  leaseEnds: number;
}

/**
 * One subscription's share of this sender: `sending` counts its slots (attempts whose POST has not
 * been answered yet), `running` every attempt not yet recorded (an answered one waits for its group
 * commit, a few milliseconds, while its successor already sends in its slot). Slots, not attempts,
 * decide how much to hold and when to claim again: counting the recording ones as slots (about 50 of
 * them behind a claim) made the sender claim again after almost every attempt of a backlog.
 */
export interface Share {
  sending: number;
  running: number;
  held: Held[];
  /** how long its POSTs take to be answered, a moving average (ms; 0: none answered yet) */
  answerMs: number;
}

/** A share's held deliveries per slot. */
export function holdPerSlotOf(share: Share): number {
  return holdPerSlotFor(share.answerMs);
}

/** The earliest due time of held deliveries (now when none), compared as numbers: a Date compared with `<` is converted on each comparison, and a claim reads up to heldCap of them. */
export function oldestDueOf(list: readonly Held[]): Date {
  let oldest: Date | undefined;
  let oldestMs = Infinity;
  for (const h of list) {
    const ms = h.d.nextAttemptAt.getTime();
    if (ms < oldestMs) {
      oldestMs = ms;
      oldest = h.d.nextAttemptAt;
    }
  }
  return oldest ?? new Date();
}
