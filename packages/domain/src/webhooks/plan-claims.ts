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
  /** its attempts in flight now (every sender's) */
  inFlight: number;
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
  /**
   * this sender's own attempts in flight and held deliveries, by subscription (see `hold`), and how
   * many it wants held per slot of it when not `holdPerSlot` (e.g. from how fast its receiver
   * answers)
   */
  own?: ReadonlyMap<bigint, { running: number; held: number; holdPerSlot?: number }>;
  /** deliveries to hold per slot of a subscription, ready to take over the slot (0: none) */
  holdPerSlot?: number;
  /** held deliveries this sender may add now */
  holdBudget?: number;
}

export interface PlannedClaim {
  subscriptionId: bigint;
  /** null: failed without an attempt (not counted against any cap) */
  host: string | null;
  /** deliveries to start now, each counted against the host's and the app's caps */
  count: number;
  /**
   * deliveries to hold, not counted: when an attempt of the subscription ends, the sender starts a
   * held one in its place (the slot passes on, so nothing is added at the host), and the claim moves
   * to it in the same transaction that records the ended one. Only given while no subscription
   * waiting beside it (same host or app) has fewer attempts in flight, and the sender's budget was
   * not short, so holding keeps shares even, never keeps one queue below another.
   */
  hold: number;
}

interface AppTurn {
  appId: bigint;
  queues: { queue: DueQueue; left: number }[];
  next: number;
  inFlight: number;
  oldest: number;
}

/**
 * decisions §11.7: how many due deliveries of each subscription one claim takes. Slots are handed
 * out one at a time, round-robin across apps and, within an app, round-robin across its
 * subscriptions, each time starting with the one that has the fewest attempts in flight (then the
 * one whose oldest due delivery has waited longest), so that turns carry over from claim to claim
 * (a claim often has a single slot to give), while the receiving host has
 * fewer than `perHost` attempts in flight, the app fewer than `perApp`, and the sender has budget
 * left. So a backlog, a hanging host or an app with many subscriptions takes at most its caps, and
 * everyone else's deliveries are claimed beside it. Deliveries that will not be sent (host null) are
 * taken outside the caps, up to the budget. Then deliveries to hold (PlannedClaim.hold), up to
 * `holdPerSlot` per slot, for subscriptions that are not ahead of a neighbour still waiting.
 */
export function planClaims(input: ClaimPlanInput): PlannedClaim[] {
  const { caps } = input;
  const planned = new Map<bigint, PlannedClaim>();
  const entryOf = (queue: DueQueue) => {
    const entry = planned.get(queue.subscriptionId) ?? { subscriptionId: queue.subscriptionId, host: queue.host, count: 0, hold: 0 };
    planned.set(queue.subscriptionId, entry);
    return entry;
  };
  const give = (queue: DueQueue, count: number) => {
    entryOf(queue).count += count;
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
    const turn = apps.get(queue.appId) ?? {
      appId: queue.appId,
      queues: [],
      next: 0,
      inFlight: input.inFlightByApp.get(queue.appId) ?? 0,
      oldest: Infinity,
    };
    turn.queues.push({ queue, left: queue.due });
    turn.oldest = Math.min(turn.oldest, queue.oldestDue.getTime());
    apps.set(queue.appId, turn);
  }
  // Fewest in flight first, then oldest; ids break ties so that a plan does not depend on the order rows came in.
  const before = (a: [number, number, bigint], b: [number, number, bigint]) =>
    a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0);
  const order = [...apps.values()].sort((a, b) => before([a.inFlight, a.oldest, a.appId], [b.inFlight, b.oldest, b.appId]));
  for (const turn of order) {
    const key = (q: DueQueue): [number, number, bigint] => [q.inFlight, q.oldestDue.getTime(), q.subscriptionId];
    turn.queues.sort((a, b) => before(key(a.queue), key(b.queue)));
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

  const waiting = order.flatMap((turn) => turn.queues.filter((slot) => slot.left > 0).map((slot) => slot.queue));
  const couldUseBudget = waiting.some((q) => (hostLeft.get(q.host!) ?? 0) > 0 && (appLeft.get(q.appId) ?? 0) > 0);
  let holdBudget = input.holdBudget ?? 0;
  const perSlot = input.holdPerSlot ?? 0;
  if (perSlot > 0 && !(budget <= 0 && couldUseBudget)) {
    for (const turn of order) {
      for (const slot of turn.queues) {
        const q = slot.queue;
        const own: { running: number; held: number; holdPerSlot?: number } = input.own?.get(q.subscriptionId) ?? { running: 0, held: 0 };
        const slots = own.running + (planned.get(q.subscriptionId)?.count ?? 0);
        if (slots === 0 || slot.left <= 0 || holdBudget <= 0) continue;
        // A neighbour (same host or app) still waiting with fewer attempts in flight than this one
        // would be kept at its share by a slot held here: then nothing is held, the slot comes
        // back when its attempt ends, and the next claim gives it to the one with fewer.
        const mine = q.inFlight + (planned.get(q.subscriptionId)?.count ?? 0);
        const shortChanged = waiting.some(
          (w) =>
            w.subscriptionId !== q.subscriptionId &&
            (w.host === q.host || w.appId === q.appId) &&
            w.inFlight + (planned.get(w.subscriptionId)?.count ?? 0) < mine,
        );
        if (shortChanged) continue;
        const hold = Math.min((own.holdPerSlot ?? perSlot) * slots - own.held, slot.left, holdBudget);
        if (hold <= 0) continue;
        entryOf(q).hold += hold;
        holdBudget -= hold;
      }
    }
  }
  return [...planned.values()];
}
