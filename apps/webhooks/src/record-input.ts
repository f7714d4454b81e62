import type { AttemptResult } from './deliver';
import type { Outcome } from './schedule';

// What recording an attempt takes and gives (record.ts), shared with the SQLite statements (record-sqlite.ts).

/** Why a delivery is failed without an attempt when its subscription is no longer enabled. */
export const SUBSCRIPTION_DISABLED = 'subscription disabled';
export const SUBSCRIPTION_DELETED = 'subscription deleted';

export interface RecordInput {
  deliveryId: bigint;
  subscriptionId: bigint;
  owner: string;
  /** the attempt's number (1 for the first) */
  attempt: number;
  startedAt: Date;
  result: AttemptResult;
  outcome: Outcome;
  /** service clock */
  now: Date;
  /** the held delivery that took this attempt's slot: its claim counts from this record on */
  transfer?: SlotTransfer | undefined;
}

/** A held delivery's claim and the host whose slot it took over (planClaims' `hold`). */
export interface SlotTransfer {
  id: bigint;
  owner: string;
  host: string;
}

export interface Recorded {
  /** false when the claim was no longer ours (it expired and was taken over): nothing was written */
  written: boolean;
  /** the subscription was disabled by this attempt (410, or the failed delivery that makes the streak DISABLE_AFTER_FAILED_DELIVERIES long) */
  disabled: 'gone' | 'failures' | undefined;
}

/**
 * The slots a group hands on. A successor that ended in the same group is recorded (its claim
 * cleared) in it: its own transfer, if any, carries the slot on, and nothing is set on it (no row is
 * written twice in one statement).
 */
export function transfersOf(inputs: RecordInput[]): SlotTransfer[] {
  const out: SlotTransfer[] = [];
  let ended: Set<bigint> | undefined;
  for (const i of inputs) {
    if (!i.transfer) continue;
    ended ??= new Set(inputs.map((x) => x.deliveryId));
    if (!ended.has(i.transfer.id)) out.push(i.transfer);
  }
  return out;
}
