/**
 * decisions §11.7: the receiving host of an address, which the concurrency cap counts: the host
 * name in lower case without its port (so addresses on many ports of one host share one cap), IPv6
 * literals without brackets. An address that does not parse is its own "host".
 */
export function receivingHost(address: string): string {
  try {
    return new URL(address).hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  } catch {
    return address;
  }
}

/** One subscription's due deliveries that no sender holds, as a claim sees them. */
export interface DueQueue {
  subscriptionId: bigint;
  appId: bigint;
  /**
   * receivingHost of its address; null when nothing will be sent (the subscription is disabled or
   * gone): such deliveries are failed without an attempt, outside every cap
   */
  host: string | null;
  /** how many are due (a claim may count only as many as it could take) */
  due: number;
  /** the due time of the oldest of them */
  oldestDue: Date;
}

export interface ClaimCaps {
  /** attempts in flight per receiving host, across every sender */
  perHost: number;
  /** attempts in flight per app, across every sender */
  perApp: number;
}

export interface ClaimPlanInput {
  queues: readonly DueQueue[];
  /** attempts in flight now (live claims of every sender) by host and by app */
  inFlightByHost: ReadonlyMap<string, number>;
  inFlightByApp: ReadonlyMap<bigint, number>;
  caps: ClaimCaps;
  /** attempts this sender can start now (its free slots) */
  budget: number;
}

export interface PlannedClaim {
  subscriptionId: bigint;
  /** null: failed without an attempt (not counted against any cap) */
  host: string | null;
  count: number;
}

interface AppTurn {
  appId: bigint;
  queues: { queue: DueQueue; left: number }[];
  next: number;
  oldest: number;
}

/**
 * decisions §11.7: how many due deliveries of each subscription one claim takes. Slots are handed
 * out one at a time, round-robin across apps (the app whose oldest due delivery has waited longest
 * first) and, within an app, round-robin across its subscriptions, while the receiving host has
 * fewer than `perHost` attempts in flight, the app fewer than `perApp`, and the sender has budget
 * left. So a backlog, a hanging host or an app with many subscriptions takes at most its caps, and
 * everyone else's deliveries are claimed beside it. Deliveries that will not be sent (host null) are
 * taken outside the caps, up to the budget.
 */
export function planClaims(input: ClaimPlanInput): PlannedClaim[] {
  const { caps } = input;
  const planned = new Map<bigint, PlannedClaim>();
  const give = (queue: DueQueue, count: number) => {
    const entry = planned.get(queue.subscriptionId) ?? { subscriptionId: queue.subscriptionId, host: queue.host, count: 0 };
    entry.count += count;
    planned.set(queue.subscriptionId, entry);
  };

  let silentBudget = input.budget;
  for (const queue of input.queues) {
    if (queue.host !== null || queue.due <= 0 || silentBudget <= 0) continue;
    const count = Math.min(queue.due, silentBudget);
    give(queue, count);
    silentBudget -= count;
  }

  const hostLeft = new Map<string, number>();
  const appLeft = new Map<bigint, number>();
  const apps = new Map<bigint, AppTurn>();
  for (const queue of input.queues) {
    if (queue.host === null || queue.due <= 0) continue;
    if (!hostLeft.has(queue.host)) hostLeft.set(queue.host, caps.perHost - (input.inFlightByHost.get(queue.host) ?? 0));
    if (!appLeft.has(queue.appId)) appLeft.set(queue.appId, caps.perApp - (input.inFlightByApp.get(queue.appId) ?? 0));
    const turn = apps.get(queue.appId) ?? { appId: queue.appId, queues: [], next: 0, oldest: Infinity };
    turn.queues.push({ queue, left: queue.due });
    turn.oldest = Math.min(turn.oldest, queue.oldestDue.getTime());
    apps.set(queue.appId, turn);
  }
  // Oldest first; ids break ties so that a plan does not depend on the order rows came in.
  const byAge = (ageA: number, idA: bigint, ageB: number, idB: bigint) => ageA - ageB || (idA < idB ? -1 : idA > idB ? 1 : 0);
  const order = [...apps.values()].sort((a, b) => byAge(a.oldest, a.appId, b.oldest, b.appId));
  for (const turn of order) {
    turn.queues.sort((a, b) => byAge(a.queue.oldestDue.getTime(), a.queue.subscriptionId, b.queue.oldestDue.getTime(), b.queue.subscriptionId));
  }

  let budget = input.budget;
  let progress = true;
  while (budget > 0 && progress) {
    progress = false;
    for (const turn of order) {
      if (budget <= 0) break;
      if ((appLeft.get(turn.appId) ?? 0) <= 0) continue;
      // The app's next subscription (round-robin) whose host has a slot and which has work left.
      for (let step = 0; step < turn.queues.length; step++) {
        const i = (turn.next + step) % turn.queues.length;
        const slot = turn.queues[i]!;
        const host = slot.queue.host!;
        if (slot.left <= 0 || (hostLeft.get(host) ?? 0) <= 0) continue;
        give(slot.queue, 1);
        slot.left--;
        hostLeft.set(host, hostLeft.get(host)! - 1);
        appLeft.set(turn.appId, appLeft.get(turn.appId)! - 1);
        budget--;
        turn.next = i + 1;
        progress = true;
        break;
      }
    }
  }
  return [...planned.values()];
}
