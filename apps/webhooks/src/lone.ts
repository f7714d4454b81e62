import { planClaims, receivingHost, type ClaimCaps } from '@platform/domain/webhooks';
import { claimedReturning, inClaimOrder, NEXT_DUE, toClaimed, type ClaimedDelivery, type ClaimedRow } from './claimed';
import { pendingFence, type Query } from './sql';
import { FOLD_COUNTS, FREE, LIVE_COUNTS } from './walk';

/**
 * PostgreSQL: the claim of one round trip, for a claim with one queue to plan (most claims of a
 * sender keeping up with its events: a few deliveries of the subscription it has been sending).
 * When every delivery due and free belongs to one subscription, the one the sender's last claim
 * worked on, and the sender holds deliveries of no other, planClaims (@platform/domain) has no
 * round robin to turn and no neighbour to keep even: its plan is a sum of minimums (how many start
 * now under the host's and the app's caps and the budget, how many more to hold). The statement
 * checks that case under the claim lock, computes those two numbers, gives slots to the sender's
 * held deliveries first and takes the rest, oldest first, with what sending needs: BEGIN, the
 * lock, it and the COMMIT travel together. Anything else (another subscription's delivery due, the
 * subscription disabled or its address changed, more due than a claim counts) and it takes nothing;
 * the claim is then walked and planned as always (claimDue), a round trip more, once.
 *
 * The rules stay in @platform/domain: every lone claim returns what it read (due, in flight at the
 * host and the app) and what it computed, and claimDue checks the numbers against planClaims on the
 * same input, reporting a difference (test/lone.e2e.test.ts compares both ways on the same states).
 */
export interface LoneQueue {
  subscriptionId: bigint;
  appId: bigint;
  storeId: bigint;
  /** its address when the hint was taken: `host` is this address's receiving host */
  address: string;
  host: string;
}

/**
 * The statement. `due`: the free due deliveries of every subscription, on the pending index of
 * next_attempt_at, at most the count cap and one (more: a backlog, planned as always). `lone`: the
 * subscription with what sending needs, when nothing else is due. `plan`: one queue's plan (see
 * planClaims): counted `cnt`, then `hold` more. `promoted`: the first held deliveries get the slots;
 * `pick`: the oldest free ones for the rest, as the planned take picks them. Each part costs even
 * when it has nothing to do (a data-modifying part about 0.2 ms of a 0.5 ms statement, measured):
 * the ledger's fold (walk.ts) is left to every FOLD_EVERY-th lone claim (and every planned one), the
 * promotion to claims of a sender holding deliveries.
 */
function loneClaimSql(fold: boolean, promote: boolean): string {
  return `WITH args AS MATERIALIZED (
    SELECT ?::bigint AS sub, ?::bigint AS app, ?::bigint AS store, ?::text AS address, ?::text AS host,
      ?::int AS per_host, ?::int AS per_app, ?::int AS budget, ?::int AS hold_budget, ?::int AS count_cap,
      ?::int AS held, ?::int AS running, ?::int AS per_slot, ?::int AS own_per_slot
  ),
  live AS (${LIVE_COUNTS}),${fold ? ` ${FOLD_COUNTS},` : ''}
  due AS MATERIALIZED (
    SELECT d.subscription_id, d.app_id, d.store_id FROM webhook_deliveries d
    WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND ${FREE} LIMIT (SELECT count_cap + 1 FROM args)
  ),
  lone AS MATERIALIZED (
    SELECT s.address, s.status AS subscription_status, a.app_secret, st.handle, st.iana_timezone, st.merchant_id
    FROM args JOIN webhook_subscriptions s ON s.id = args.sub JOIN apps a ON a.id = s.app_id JOIN stores st ON st.id = s.store_id
    WHERE s.app_id = args.app AND s.store_id = args.store AND s.address = args.address AND s.status = 'enabled'
      AND (SELECT COUNT(*) FROM due) <= args.count_cap
      AND NOT EXISTS (SELECT 1 FROM due WHERE due.subscription_id IS DISTINCT FROM args.sub
        OR due.app_id IS DISTINCT FROM args.app OR due.store_id IS DISTINCT FROM args.store)
  ),
  counted AS MATERIALIZED (
    SELECT (SELECT COUNT(*) FROM due)::int + args.held AS due_n,
      (SELECT COALESCE(SUM(n), 0) FROM live WHERE live.host = args.host)::int AS live_host,
      (SELECT COALESCE(SUM(n), 0) FROM live WHERE live.app_id = args.app)::int AS live_app
    FROM args WHERE EXISTS (SELECT 1 FROM lone)
  ),
  started AS MATERIALIZED (
    SELECT c.*, GREATEST(0, LEAST(c.due_n, args.per_host - c.live_host, args.per_app - c.live_app, args.budget)) AS cnt
    FROM counted c CROSS JOIN args
  ),
  plan AS MATERIALIZED (
    SELECT p.*, CASE
        WHEN args.per_slot > 0
          AND NOT (args.budget - p.cnt <= 0 AND args.per_host - p.live_host - p.cnt > 0 AND args.per_app - p.live_app - p.cnt > 0)
          AND args.running + p.cnt > 0 AND p.due_n - p.cnt > 0 AND args.hold_budget > 0
        THEN GREATEST(0, LEAST(args.own_per_slot * (args.running + p.cnt) - args.held, p.due_n - p.cnt, args.hold_budget))
        ELSE 0 END AS hold
    FROM started p CROSS JOIN args
  ),
  promoted AS (${
    promote
      ? `
    UPDATE webhook_deliveries d SET lease_host = args.host
    FROM plan CROSS JOIN args CROSS JOIN unnest(?::bigint[], ?::text[]) WITH ORDINALITY AS h(id, owner, i)
    WHERE h.i <= plan.cnt AND d.id = h.id AND d.lease_owner = h.owner AND ${pendingFence('d')}
    RETURNING d.id`
      : 'SELECT NULL::bigint AS id WHERE false'
  }
  ),
  pick AS MATERIALIZED (
    SELECT o.id, CASE WHEN o.rn <= plan.cnt - (SELECT COUNT(*) FROM promoted) THEN args.host END AS host
    FROM plan CROSS JOIN args CROSS JOIN LATERAL (
      SELECT id, ROW_NUMBER() OVER (ORDER BY next_attempt_at, id) AS rn FROM (
        SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
        WHERE d.status = 'pending' AND d.subscription_id = args.sub AND d.next_attempt_at <= ? AND ${FREE}
        ORDER BY d.next_attempt_at, d.id LIMIT plan.cnt - (SELECT COUNT(*) FROM promoted) + plan.hold
      ) oldest
    ) o
  ),
  taken AS (
    UPDATE webhook_deliveries u SET lease_owner = ?, lease_until = ?, lease_host = pick.host
    FROM pick CROSS JOIN lone
    WHERE u.id = pick.id AND ${pendingFence('u')}
    RETURNING ${claimedReturning('u', 'lone')}
  )
  SELECT plan.due_n, plan.live_host, plan.live_app, plan.cnt, plan.hold, (SELECT array_agg(id) FROM promoted) AS promoted,
    (${NEXT_DUE}) AS next_due, taken.*
  FROM (SELECT 1) one LEFT JOIN plan ON true LEFT JOIN taken ON true`;
}

/** The statement's four texts (each prepared once on the claims' connection). */
const LONE_CLAIMS = new Map<string, string>();
const loneClaim = (fold: boolean, promote: boolean): string => {
  const key = `${fold}:${promote}`;
  let text = LONE_CLAIMS.get(key);
  if (!text) LONE_CLAIMS.set(key, (text = loneClaimSql(fold, promote)));
  return text;
};

type LoneRow = Omit<ClaimedRow, 'id'> & {
  id: bigint | null;
  due_n: number | null;
  live_host: number | null;
  live_app: number | null;
  cnt: number | null;
  hold: number | null;
  promoted: (bigint | string)[] | null;
  next_due: Date | string | null;
};

export interface LoneRequest {
  now: Date;
  realNow: Date;
  implausible: Date;
  owner: string;
  leaseUntil: Date;
  caps: ClaimCaps;
  budget: number;
  holdBudget: number;
  /** the global number to hold per slot (planClaims' holdPerSlot) */
  holdPerSlot: number;
  /** as many as a walk would count of one subscription */
  countCap: number;
  /** the sender's share of the subscription */
  own: { running: number; held: readonly { id: bigint; owner: string }[]; holdPerSlot?: number };
  /** fold the ledger of live claims (walk.ts, FOLD_COUNTS) in this claim */
  fold: boolean;
}

export interface LoneClaim {
  /** newly claimed, oldest first: the counted ones have leaseHost set, the held ones null */
  rows: ClaimedDelivery[];
  promoted: bigint[];
  /** planClaims' numbers as the statement computed them, and their input */
  count: number;
  hold: number;
  input: { due: number; liveHost: number; liveApp: number };
  /** free due deliveries it did not take */
  leftBehind: boolean;
  nextDue: Date | null;
}

/**
 * The lone claim as the transaction's only statement (`last`: it commits). Undefined when it took
 * nothing because the claim has more than one queue to plan (the caller walks and plans it).
 */
export async function claimLone(last: Query, lone: LoneQueue, req: LoneRequest): Promise<LoneClaim | undefined> {
  const { own } = req;
  const promote = own.held.length > 0;
  const result = await last<LoneRow>(loneClaim(req.fold, promote), [
    lone.subscriptionId,
    lone.appId,
    lone.storeId,
    lone.address,
    lone.host,
    req.caps.perHost,
    req.caps.perApp,
    req.budget,
    req.holdBudget,
    req.countCap,
    own.held.length,
    own.running,
    req.holdPerSlot,
    own.holdPerSlot ?? req.holdPerSlot,
    req.realNow,
    req.implausible,
    req.now,
    req.realNow,
    req.implausible,
    ...(promote ? [own.held.map((h) => h.id.toString()), own.held.map((h) => h.owner)] : []),
    req.now,
    req.realNow,
    req.implausible,
    req.owner,
    req.leaseUntil,
    req.now,
  ]);
  const head = result[0];
  if (!head || head.cnt === null) return undefined;
  const rows = result
    .filter((r): r is LoneRow & { id: bigint } => r.id !== null)
    .map((r) => toClaimed(r, r))
    .sort(inClaimOrder);
  const promoted = (head.promoted ?? []).map((id) => BigInt(id));
  const count = Number(head.cnt);
  const hold = Number(head.hold);
  const free = Number(head.due_n) - own.held.length;
  return {
    rows,
    promoted,
    count,
    hold,
    input: { due: Number(head.due_n), liveHost: Number(head.live_host), liveApp: Number(head.live_app) },
    leftBehind: free >= req.countCap || free > Math.max(0, count - promoted.length) + hold,
    nextDue: head.next_due === null ? null : new Date(head.next_due),
  };
}

/**
 * planClaims on what a lone claim read: undefined when it computes the numbers the statement did,
 * else what the sender logs about the difference (a fault of the statement).
 */
export function differsFromPlan(lone: LoneQueue, req: LoneRequest, claim: LoneClaim): Record<string, unknown> | undefined {
  const [plan] = planClaims({
    queues: [
      { subscriptionId: lone.subscriptionId, appId: lone.appId, host: lone.host, due: claim.input.due, oldestDue: req.now, inFlight: 0 },
    ],
    inFlightByHost: new Map([[lone.host, claim.input.liveHost]]),
    inFlightByApp: new Map([[lone.appId, claim.input.liveApp]]),
    caps: req.caps,
    budget: req.budget,
    own: new Map([[lone.subscriptionId, { running: req.own.running, held: req.own.held.length, holdPerSlot: req.own.holdPerSlot }]]),
    holdPerSlot: req.holdPerSlot,
    holdBudget: req.holdBudget,
  });
  const planned = { count: plan?.count ?? 0, hold: plan?.hold ?? 0 };
  if (planned.count === claim.count && planned.hold === claim.hold) return undefined;
  return { subscriptionId: lone.subscriptionId.toString(), ...claim.input, lone: { count: claim.count, hold: claim.hold }, planned };
}

/**
 * What the next claim may try alone after a planned one: the one subscription it took deliveries of
 * (started or held) or gave slots to, enabled, the deliveries its own app's and store's; undefined
 * when it worked on several. A claim that found nothing keeps `before`.
 */
export function loneAfter(
  before: LoneQueue | undefined,
  claim: { rows: readonly ClaimedDelivery[]; promotedOf: readonly bigint[] },
): LoneQueue | undefined {
  const subscriptions = new Set([...claim.rows.map((d) => d.subscriptionId), ...claim.promotedOf]);
  if (subscriptions.size === 0) return before;
  if (subscriptions.size > 1) return undefined;
  const first = claim.rows[0];
  if (!first) return before?.subscriptionId === claim.promotedOf[0] ? before : undefined;
  if (first.address === null || first.subscriptionStatus !== 'enabled') return undefined;
  if (!claim.rows.every((d) => d.appId === first.appId && d.storeId === first.storeId)) return undefined;
  const { subscriptionId, appId, storeId, address } = first;
  return { subscriptionId, appId, storeId, address, host: receivingHost(address) };
}
