import { planClaims, type ClaimCaps, type DueQueue, type PlannedClaim } from '@platform/domain/webhooks';
import {
  claimedReturning,
  DELIVERY_COLUMNS,
  inClaimOrder,
  toClaimed,
  withTheirOwners,
  type ClaimedDelivery,
  type ClaimedRow,
  type DeliveryRow,
} from './claimed';
import { pendingFence, type Query, type Sql } from './sql';
import { claimLone, differsFromPlan, loneAfter, type LoneQueue, type LoneRequest } from './lone';
import { walkQueues, type WalkCursor } from './walk';

/**
 * decisions §11.6-§11.7: claiming due deliveries. A claim sets `lease_owner` (unique per claim),
 * `lease_until` (real time) and `lease_host` on deliveries that are pending, due on the SERVICE
 * clock, and free: never leased, lease expired (a crashed sender's), or leased implausibly far ahead
 * (a sender whose real-time clock was wrong). Every later write of the delivery is fenced on
 * `lease_owner`, so a sender whose claim was taken over writes nothing more.
 *
 * A claim takes only what its sender starts at once, so the live claims ARE the attempts in flight,
 * of every sender. Each claim counts them per receiving host and per app and hands out what the caps
 * leave (planClaims in @platform/domain: round-robin across apps, then across an app's
 * subscriptions), plus deliveries held uncounted to take over a slot when an attempt of the same
 * subscription ends (PlannedClaim.hold; the record moves the count to them). A sender's held
 * deliveries are the first its subscription's new slots go to. Claims are one at a time across all senders (Sql.exclusive: SQLite's one writer;
 * PostgreSQL an advisory lock), so two claims never count the same free slot: the caps hold for all
 * senders together.
 *
 * Finding the work without scanning a backlog: the subscriptions with pending deliveries are walked
 * one index seek each (a recursive "next subscription id" query on the partial index of pending rows
 * (status, subscription_id, next_attempt_at, id), without status on PostgreSQL: migration
 * 20261128020000_pending_indexes_keyed_after_status), and each one's due count and oldest due time
 * are read on the same index. A walk
 * covers at most WALK_LIMIT subscriptions and the next claim goes on from where it stopped.
 */
export interface ClaimRequest {
  /** Service clock (decisions §10): what is due. */
  now: Date;
  /** Real time: lease expiry. */
  realNow: Date;
  leaseMs: number;
  owner: string;
  caps: ClaimCaps;
  /** attempts the sender can start now */
  budget: number;
  /** the sender's own share of each subscription it works on, and how many more deliveries it may hold */
  own: ReadonlyMap<bigint, OwnShare>;
  holdPerSlot: number;
  holdBudget: number;
}

/**
 * What this sender has of one subscription: attempts in flight, and deliveries it holds (claimed,
 * not counted). Held ones are the first the subscription's next slots go to (promoted: their claim
 * is counted from then on), before any new delivery is claimed.
 */
export interface OwnShare {
  running: number;
  held: readonly { id: bigint; owner: string }[];
  appId: bigint;
  host: string;
  oldestDue: Date;
  /** how many to hold per slot of it, when not the request's holdPerSlot */
  holdPerSlot?: number;
}

export interface Claimed {
  /** newly claimed */
  ids: bigint[];
  /** the newly claimed deliveries, oldest first, read by the claim itself */
  rows: ClaimedDelivery[];
  /** held deliveries of this sender whose claims now count: start them */
  promoted: bigint[];
  /** the claims' expiry (real time), the same on every delivery of this claim */
  leaseUntil: Date;
  /** another claim now could take more (the budget ran out, or the walk stopped short of the end) */
  more: boolean;
  /**
   * Due deliveries were left behind (the caps or the budget kept them, or they are the sender's
   * held ones beyond their slots): a slot freed from now on is worth a claim. When none were, the
   * next work comes with a wake of its own (the outbox's, which every sender hears, or its due time).
   */
  leftBehind: boolean;
  /**
   * PostgreSQL: when the next pending delivery falls due after the claim's `now` (service clock),
   * null when none is pending, read by the claim's walk (a round trip fewer a claim: at 500 events/s
   * almost every event has a claim of its own); undefined on SQLite (nextDueAt reads it).
   */
  nextDue?: Date | null;
  /**
   * A lone claim (lone.ts) whose numbers are not planClaims' on what it read: a fault of the
   * statement, logged by the sender (what it took stays within the caps the statement checked).
   */
  differs?: Record<string, unknown>;
}

/** What a sender keeps from one claim to the next: where the walk goes on, and (PostgreSQL) whether the next may be a lone claim (lone.ts). */
export interface ClaimState extends WalkCursor {
  lone?: LoneQueue;
  /** planned claims to make before trying alone again (after a lone claim found a choice to make) */
  planFirst?: number;
  /** lone claims since the ledger of live claims was last folded (a planned claim's walk folds it) */
  sinceFold?: number;
}

/** A lone claim folds the ledger of live claims (walk.ts) once in this many; a claim appends about two rows to it. */
const FOLD_EVERY = 16;

/** After a lone claim that had to give way to a planned one, this many planned claims before the next try. */
const LONE_PAUSE = 8;

/** Claims what the caps allow. */
export async function claimDue(sql: Sql, req: ClaimRequest, cursor: ClaimState): Promise<Claimed> {
  const leaseUntil = new Date(req.realNow.getTime() + req.leaseMs);
  if (req.budget <= 0 && req.holdBudget <= 0) return { ids: [], rows: [], promoted: [], leaseUntil, more: false, leftBehind: true };
  const implausible = new Date(req.realNow.getTime() + 2 * req.leaseMs);
  const countCap = countCapOf(req);
  const lone = cursor.lone;
  // Alone only while the sender holds deliveries of no other subscription (they would be queues of the plan too).
  if (lone && req.budget > 0 && [...req.own].every(([sub, share]) => share.held.length === 0 || sub === lone.subscriptionId)) {
    if ((cursor.planFirst ?? 0) > 0) cursor.planFirst!--;
    else {
      const loneReq: LoneRequest = {
        ...req,
        implausible,
        leaseUntil,
        countCap,
        own: req.own.get(lone.subscriptionId) ?? { running: 0, held: [] },
        fold: (cursor.sinceFold ?? 0) >= FOLD_EVERY,
      };
      const alone = await sql.exclusive((_q, last) => claimLone(last, lone, loneReq));
      cursor.sinceFold = loneReq.fold ? 0 : (cursor.sinceFold ?? 0) + 1;
      if (alone) {
        const differs = differsFromPlan(lone, loneReq, alone);
        return {
          ids: alone.rows.map((d) => d.id),
          rows: alone.rows,
          promoted: alone.promoted,
          leaseUntil,
          more: alone.count >= req.budget,
          leftBehind: alone.leftBehind,
          nextDue: alone.nextDue,
          ...(differs ? { differs } : {}),
        };
      }
      cursor.lone = undefined;
      cursor.planFirst = LONE_PAUSE;
    }
  }
  const planned = await claimPlanned(sql, req, cursor, leaseUntil, implausible, countCap);
  cursor.sinceFold = 0;
  if (sql.db.provider === 'postgresql') {
    const subscriptionOf =
      planned.promoted.length === 0
        ? new Map<bigint, bigint>()
        : new Map([...req.own].flatMap(([sub, share]) => share.held.map((h) => [h.id, sub] as const)));
    const promotedOf = planned.promoted.map((id) => subscriptionOf.get(id) ?? 0n);
    cursor.lone = loneAfter(cursor.lone, { rows: planned.rows, promotedOf });
  }
  return planned;
}

/** No one subscription can take more than this in one claim: its host's slots and what it may hold for them, and what the sender may take. (Counting further would cost time for nothing.) */
function countCapOf(req: ClaimRequest): number {
  const mostPerSlot = Math.max(req.holdPerSlot, ...[...req.own.values()].map((share) => share.holdPerSlot ?? 0));
  return Math.min(req.caps.perHost * (1 + mostPerSlot), Math.max(0, req.budget) + Math.max(0, req.holdBudget));
}

/** The claim planned in @platform/domain (planClaims) on what its walk found: two round trips on PostgreSQL. */
async function claimPlanned(
  sql: Sql,
  req: ClaimRequest,
  cursor: WalkCursor,
  leaseUntil: Date,
  implausible: Date,
  countCap: number,
): Promise<Claimed> {
  return sql.exclusive(async (q, last) => {
    const { live, queues: walked, nextDue } = await walkQueues(sql, q, req, implausible, countCap, cursor);
    const inFlightByHost = new Map<string, number>();
    const inFlightByApp = new Map<bigint, number>();
    const inFlightBySubscription = new Map<bigint, number>();
    const add = <K>(map: Map<K, number>, key: K, n: number) => map.set(key, (map.get(key) ?? 0) + n);
    for (const row of live) {
      add(inFlightByHost, row.host, Number(row.n));
      add(inFlightByApp, BigInt(row.app_id), Number(row.n));
      add(inFlightBySubscription, BigInt(row.subscription_id), Number(row.n));
    }
    for (const queue of walked) queue.inFlight = inFlightBySubscription.get(queue.subscriptionId) ?? 0;
    // What the walk found due and free, before the sender's held deliveries join their queues.
    const freeDue = walked.map((queue) => ({ subscriptionId: queue.subscriptionId, due: queue.due }));
    const queues = withHeld(walked, req.own, inFlightBySubscription);
    const own = new Map(
      [...req.own].map(([sub, share]) => [sub, { running: share.running, held: share.held.length, holdPerSlot: share.holdPerSlot }]),
    );
    const plan = planClaims({
      queues,
      inFlightByHost,
      inFlightByApp,
      caps: req.caps,
      budget: req.budget,
      own,
      holdPerSlot: req.holdPerSlot,
      holdBudget: req.holdBudget,
    });
    const promoted = await promote(sql, q, plan, req);
    const rest = plan.map((p) => ({ ...p, count: p.count - (promoted.bySubscription.get(p.subscriptionId) ?? 0) }));
    const taken = rest.some((p) => p.count > 0 || p.hold > 0)
      ? await take(sql, q, last, rest, { ...req, leaseUntil, implausible })
      : { ids: [], rows: [] };
    const started = plan.reduce((n, p) => n + p.count, 0);
    // Free due deliveries the claim did not take (slots go to held ones first). The sender's held
    // ones are not counted: an attempt of their subscription hands its slot on to them, and one with
    // none in flight asks for a claim (sender.ts). A count the walk stopped at its cap may hide more.
    const taking = new Map(rest.map((p) => [p.subscriptionId, Math.max(0, p.count) + p.hold]));
    const leftBehind = freeDue.some(({ subscriptionId, due }) => due >= countCap || due > (taking.get(subscriptionId) ?? 0));
    return {
      ...taken,
      promoted: promoted.ids,
      leaseUntil,
      more: (req.budget > 0 && started >= req.budget) || cursor.after > 0n,
      leftBehind,
      ...(nextDue === undefined ? {} : { nextDue }),
    };
  });
}

/** The sender's held deliveries join their subscription's queue (as due work its slots may go to). */
function withHeld(queues: DueQueue[], own: ReadonlyMap<bigint, OwnShare>, inFlight: ReadonlyMap<bigint, number>): DueQueue[] {
  for (const [subscriptionId, share] of own) {
    if (share.held.length === 0) continue;
    const queue = queues.find((x) => x.subscriptionId === subscriptionId);
    if (queue) {
      queue.due += share.held.length;
      if (share.oldestDue < queue.oldestDue) queue.oldestDue = share.oldestDue;
    } else {
      const { appId, host, oldestDue } = share;
      queues.push({ subscriptionId, appId, host, due: share.held.length, oldestDue, inFlight: inFlight.get(subscriptionId) ?? 0 });
    }
  }
  return queues;
}

/** Slots planned for a subscription go to the sender's held deliveries of it first: their claims get the host. */
async function promote(
  sql: Sql,
  q: Query,
  plan: PlannedClaim[],
  req: ClaimRequest,
): Promise<{ ids: bigint[]; bySubscription: Map<bigint, number> }> {
  const chosen: { id: bigint; owner: string; host: string; subscriptionId: bigint }[] = [];
  for (const p of plan) {
    const held = req.own.get(p.subscriptionId)?.held ?? [];
    if (p.host === null || p.count <= 0 || held.length === 0) continue;
    for (const h of held.slice(0, p.count)) chosen.push({ id: h.id, owner: h.owner, host: p.host, subscriptionId: p.subscriptionId });
  }
  const ids: bigint[] = [];
  const bySubscription = new Map<bigint, number>();
  if (chosen.length === 0) return { ids, bySubscription };
  if (sql.db.provider === 'postgresql') {
    const rows = await q<{ id: bigint }>(
      `UPDATE webhook_deliveries d SET lease_host = t.host FROM unnest(?::bigint[], ?::text[], ?::text[]) AS t(id, owner, host)
       WHERE d.id = t.id AND d.lease_owner = t.owner AND ${pendingFence('d')} RETURNING d.id`,
      [chosen.map((c) => c.id.toString()), chosen.map((c) => c.owner), chosen.map((c) => c.host)],
    );
    ids.push(...rows.map((r) => BigInt(r.id)));
  } else {
    for (const c of chosen) {
      const rows = await q<{ id: bigint }>(
        `UPDATE webhook_deliveries SET lease_host = ? WHERE id = ? AND lease_owner = ? AND status = 'pending' RETURNING id`,
        [c.host, c.id, c.owner],
      );
      ids.push(...rows.map((r) => BigInt(r.id)));
    }
  }
  const subscriptionOf = new Map(chosen.map((c) => [c.id, c.subscriptionId]));
  for (const id of ids) {
    const sub = subscriptionOf.get(id)!;
    bySubscription.set(sub, (bySubscription.get(sub) ?? 0) + 1);
  }
  return { ids, bySubscription };
}

/**
 * Leases the plan's deliveries, oldest first: per subscription `count` with the host set (counted:
 * started at once), then `hold` more without it (held, not counted).
 */
async function take(
  sql: Sql,
  q: Query,
  last: Query,
  plan: PlannedClaim[],
  req: ClaimRequest & { leaseUntil: Date; implausible: Date },
): Promise<{ ids: bigint[]; rows: ClaimedDelivery[] }> {
  const pick = `SELECT id FROM webhook_deliveries
    WHERE status = 'pending' AND subscription_id = ? AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ? OR lease_until > ?)
    ORDER BY next_attempt_at, id LIMIT ?`;
  if (sql.db.provider === 'postgresql') {
    // One statement for the whole plan, returning what sending needs, and the claim's last (its
    // COMMIT goes with it). `u.status` is checked again on the row as updated, in case the API
    // failed the delivery meanwhile (its writes do not take the claim lock). The pick is computed
    // once (MATERIALIZED) and the rows are updated by primary
    // key whatever the statistics say (pendingFence); each subscription's part is an index scan in
    // the claim's order that stops after k + hold rows. The subscription, its app and its store are
    // read once per subscription of the plan, not once per delivery (three index lookups a row
    // were a fifth of the statement); a delivery whose app or store is not its subscription's (the
    // outbox writes none) reads its own.
    const rows = await last<ClaimedRow>(
      `WITH plan AS MATERIALIZED (
         SELECT p.sub, p.k, p.hold, p.host, s.app_id AS sub_app, s.store_id AS sub_store, s.address, s.status AS subscription_status,
                a.app_secret, st.handle, st.iana_timezone, st.merchant_id
         FROM unnest(?::bigint[], ?::int[], ?::int[], ?::text[]) AS p(sub, k, hold, host)
         LEFT JOIN webhook_subscriptions s ON s.id = p.sub
         LEFT JOIN apps a ON a.id = s.app_id
         LEFT JOIN stores st ON st.id = s.store_id
       ),
       picked AS MATERIALIZED (
         SELECT d.id, CASE WHEN d.rn <= plan.k THEN plan.host END AS host, plan.address, plan.subscription_status,
                CASE WHEN d.app_id = plan.sub_app THEN plan.app_secret ELSE oa.app_secret END AS app_secret,
                CASE WHEN d.store_id = plan.sub_store THEN plan.handle ELSE os.handle END AS handle,
                CASE WHEN d.store_id = plan.sub_store THEN plan.iana_timezone ELSE os.iana_timezone END AS iana_timezone,
                CASE WHEN d.store_id = plan.sub_store THEN plan.merchant_id ELSE os.merchant_id END AS merchant_id
         FROM plan CROSS JOIN LATERAL (
           SELECT id, app_id, store_id, ROW_NUMBER() OVER (ORDER BY next_attempt_at, id) AS rn FROM (
             SELECT id, app_id, store_id, next_attempt_at FROM webhook_deliveries
             WHERE status = 'pending' AND subscription_id = plan.sub AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ? OR lease_until > ?)
             ORDER BY next_attempt_at, id LIMIT plan.k + plan.hold
           ) oldest
         ) d
         LEFT JOIN LATERAL (SELECT app_secret FROM apps WHERE id = d.app_id AND d.app_id IS DISTINCT FROM plan.sub_app) oa ON true
         LEFT JOIN LATERAL (
           SELECT handle, iana_timezone, merchant_id FROM stores WHERE id = d.store_id AND d.store_id IS DISTINCT FROM plan.sub_store
         ) os ON true
       )
       UPDATE webhook_deliveries u SET lease_owner = ?, lease_until = ?, lease_host = picked.host
       FROM picked
       WHERE u.id = picked.id AND ${pendingFence('u')}
       RETURNING ${claimedReturning('u', 'picked')}`,
      [
        plan.map((p) => p.subscriptionId.toString()),
        plan.map((p) => p.count),
        plan.map((p) => p.hold),
        plan.map((p) => p.host),
        req.now,
        req.realNow,
        req.implausible,
        req.owner,
        req.leaseUntil,
      ],
    );
    const claimed = rows.map((r) => toClaimed(r, r)).sort(inClaimOrder);
    return { ids: claimed.map((d) => d.id), rows: claimed };
  }
  // SQLite: each lease returns its deliveries' own columns (the rows it just wrote: no second read of
  // them), and the subscription, app and store are read once per combination of them in the claim
  // (one, as the outbox writes them), not once per delivery (reading what a claim took afterwards
  // by id, three joins a row, was a sixth of the SQLite sender's statement time, bench/webhooks
  // 2026-12-03).
  const leased: DeliveryRow[] = [];
  const lease = async (subscriptionId: bigint, host: string | null, count: number) => {
    if (count <= 0) return;
    const rows = await q<DeliveryRow>(
      `UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?, lease_host = ? WHERE id IN (${pick}) RETURNING ${DELIVERY_COLUMNS}`,
      [req.owner, req.leaseUntil, host, subscriptionId, req.now, req.realNow, req.implausible, count],
    );
    leased.push(...rows);
  };
  for (const p of plan) {
    await lease(p.subscriptionId, p.host, p.count);
    await lease(p.subscriptionId, null, p.hold);
  }
  const claimed = await withTheirOwners(q, leased);
  claimed.sort(inClaimOrder);
  return { ids: claimed.map((d) => d.id), rows: claimed };
}
