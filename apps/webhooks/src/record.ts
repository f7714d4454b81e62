import type { Db } from '@platform/db';
import { DISABLE_AFTER_FAILED_DELIVERIES } from '@platform/domain';
import type { AttemptResult } from './deliver';
import type { Outcome } from './schedule';
import { pendingFence, type Query, type Sql } from './sql';

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
 * One attempt's record and its consequences in one transaction (decisions §11.5-§11.6): the
 * delivery's new state (fenced on the claim), the attempt row, the subscription's failure streak and,
 * when it disables the subscription, its other pending deliveries that nobody holds marked failed
 * (docs/webhooks-sender.md), and the slot handed to a held delivery (`transfer`): the ended attempt's
 * claim is cleared and the successor's counted in one commit, so the count never drops below what
 * is in flight. The first statement writes, so on SQLite the transaction takes the write lock at
 * once (a read first could fail with SQLITE_BUSY when another process writes).
 */
export async function recordAttempt(sql: Sql, input: RecordInput): Promise<Recorded> {
  if (sql.db.provider === 'sqlite') return groupCommit(sql, input);
  // PostgreSQL: the common outcomes of the attempts that finish together in one statement (one round
  // trip, atomic); a failed delivery, which may disable the subscription, in Prisma's interactive
  // transaction.
  return input.outcome.kind === 'failed' ? recordWithPrisma(sql.db, input) : groupCommit(sql, input);
}

/**
 * How long a group waits for more attempts to join it: while every record in it hands its slot on
 * (a held successor is sending already, so the wait delays nothing anyone sees), GROUP_MS; once one
 * frees a slot that nobody took over (the count drops at its commit, and the next claim may give the
 * slot away), at most FREEING_MS. Bigger groups are fewer commits: 2 ms groups of a backlog made the
 * SQLite sender about 80% of the bare loop, 10 ms ones about 90% (bench/webhooks, 2026-11-26).
 */
const GROUP_MS = 10;
const FREEING_MS = 2;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The slots a group hands on. A successor that ended in the same group is recorded (its claim
 * cleared) in it: its own transfer, if any, carries the slot on, and nothing is set on it (no row is
 * written twice in one statement).
 */
function transfersOf(inputs: RecordInput[]): SlotTransfer[] {
  const ended = new Set(inputs.map((i) => i.deliveryId));
  return inputs.flatMap((i) => (i.transfer && !ended.has(i.transfer.id) ? [i.transfer] : []));
}

/** Rows per multi-row statement on SQLite: a list goes in chunks of these sizes, so a few prepared shapes serve every group. */
const CHUNKS = [64, 32, 16, 8, 4, 2, 1];

function chunksOf<T>(list: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < list.length;) {
    const size = CHUNKS.find((n) => n <= list.length - at)!;
    out.push(list.slice(at, at + size));
    at += size;
  }
  return out;
}

const tuples = (rows: number, width: number) => Array.from({ length: rows }, () => `(${Array(width).fill('?').join(', ')})`).join(', ');

/** A statement's text for each number of rows, built once (the same string each time: the prepared-statement cache hashes it once). */
function perShape(build: (rows: number) => string): (rows: number) => string {
  const texts = new Map<number, string>();
  return (rows) => {
    let text = texts.get(rows);
    if (text === undefined) texts.set(rows, (text = build(rows)));
    return text;
  };
}

const MOVE_SLOTS = perShape(
  (n) => `WITH t(id, owner, host) AS (VALUES ${tuples(n, 3)})
  UPDATE webhook_deliveries SET lease_host = t.host FROM t
  WHERE webhook_deliveries.id = t.id AND webhook_deliveries.lease_owner = t.owner AND webhook_deliveries.status = 'pending'`,
);
const RECORD_ENDED = perShape(
  (n) => `WITH v(id, owner, attempt, status, next_at, delivered_at, last_error, now_at) AS (VALUES ${tuples(n, 8)})
  UPDATE webhook_deliveries SET attempts = v.attempt, status = v.status, next_attempt_at = COALESCE(v.next_at, webhook_deliveries.next_attempt_at),
    delivered_at = v.delivered_at, last_error = v.last_error, lease_owner = NULL, lease_until = NULL, lease_host = NULL, updated_at = v.now_at
  FROM v WHERE webhook_deliveries.id = v.id AND webhook_deliveries.lease_owner = v.owner AND webhook_deliveries.status = 'pending'
  RETURNING id`,
);
const INSERT_ATTEMPTS = perShape(
  (n) => `INSERT INTO webhook_attempts (delivery_id, number, started_at, duration_ms, response_status, error, response_body, created_at)
  VALUES ${tuples(n, 8)}`,
);
const RESET_STREAKS = perShape(
  (n) => `UPDATE webhook_subscriptions SET failure_streak = 0 WHERE id IN ${tuples(1, n)} AND failure_streak <> 0`,
);

/**
 * SQLite, a group's records as multi-row statements (each row fenced as alone): the slots handed
 * on, the delivered and retried deliveries' updates, their attempt rows, and one streak reset per
 * subscription. A failed delivery, which may disable its subscription, takes recordWithSql after
 * them. A statement per row cost about as much again as the rows' own work (profiled, bench/webhooks).
 */
async function recordGroupOnSqlite(q: Query, inputs: RecordInput[]): Promise<Recorded[]> {
  for (const chunk of chunksOf(transfersOf(inputs)))
    await q(
      MOVE_SLOTS(chunk.length),
      chunk.flatMap((t) => [t.id, t.owner, t.host]),
    );
  const written = new Set<bigint>();
  const ok: RecordInput[] = [];
  for (const chunk of chunksOf(inputs.filter((i) => i.outcome.kind !== 'failed'))) {
    const rows = await q<{ id: bigint }>(
      RECORD_ENDED(chunk.length),
      chunk.flatMap((i) => [
        i.deliveryId,
        i.owner,
        i.attempt,
        i.outcome.kind === 'delivered' ? 'delivered' : 'pending',
        i.outcome.kind === 'retry' ? i.outcome.nextAttemptAt : null,
        i.outcome.kind === 'delivered' ? i.now : null,
        i.result.error,
        i.now,
      ]),
    );
    for (const r of rows) written.add(BigInt(r.id));
    ok.push(...chunk.filter((i) => written.has(i.deliveryId)));
  }
  for (const chunk of chunksOf(ok))
    await q(
      INSERT_ATTEMPTS(chunk.length),
      chunk.flatMap((i) => [
        i.deliveryId,
        i.attempt,
        i.startedAt,
        i.result.durationMs,
        i.result.status,
        i.result.error,
        i.result.responseBody,
        i.now,
      ]),
    );
  const delivered = [...new Set(ok.filter((i) => i.outcome.kind === 'delivered').map((i) => i.subscriptionId))];
  for (const chunk of chunksOf(delivered)) await q(RESET_STREAKS(chunk.length), chunk);
  const out: Recorded[] = [];
  for (const input of inputs)
    out.push(
      input.outcome.kind === 'failed' ? await recordWithSql(q, input) : { written: written.has(input.deliveryId), disabled: undefined },
    );
  return out;
}

/**
 * PostgreSQL, delivered or retry, for a group: the fenced updates, attempt rows, streak resets and
 * slot transfers as data-modifying CTEs over `unnest`.
 */
async function recordGroupInOneStatement(sql: Sql, inputs: RecordInput[]): Promise<Recorded[]> {
  const col = <T>(f: (i: RecordInput) => T) => inputs.map(f);
  const moves = transfersOf(inputs);
  const rows = await sql.records<{ id: bigint }>(
    `WITH v AS (
       SELECT * FROM unnest(?::bigint[], ?::text[], ?::int[], ?::text[], ?::timestamp[], ?::timestamp[], ?::text[], ?::timestamp[],
                            ?::int[], ?::int[], ?::text[], ?::timestamp[])
         AS v(id, owner, attempt, status, next_at, delivered_at, last_error, started_at, duration_ms, response_status, response_body, now_at)
     ), upd AS (
       UPDATE webhook_deliveries d SET attempts = v.attempt, status = v.status, next_attempt_at = COALESCE(v.next_at, d.next_attempt_at),
         delivered_at = v.delivered_at, last_error = v.last_error, lease_owner = NULL, lease_until = NULL, lease_host = NULL, updated_at = v.now_at
       FROM v WHERE d.id = v.id AND d.lease_owner = v.owner AND ${pendingFence('d')}
       RETURNING d.id, d.subscription_id, d.status
     ), ins AS (
       INSERT INTO webhook_attempts (delivery_id, number, started_at, duration_ms, response_status, error, response_body, created_at)
       SELECT v.id, v.attempt, v.started_at, v.duration_ms, v.response_status, v.last_error, v.response_body, v.now_at
       FROM v JOIN upd ON upd.id = v.id RETURNING delivery_id
     ), streak AS (
       UPDATE webhook_subscriptions SET failure_streak = 0
       WHERE id IN (SELECT subscription_id FROM upd WHERE status = 'delivered') AND failure_streak <> 0 RETURNING id
     ), moved AS (
       UPDATE webhook_deliveries d SET lease_host = t.host
       FROM unnest(?::bigint[], ?::text[], ?::text[]) AS t(id, owner, host)
       WHERE d.id = t.id AND d.lease_owner = t.owner AND ${pendingFence('d')} RETURNING d.id
     )
     SELECT id FROM upd`,
    [
      col((i) => i.deliveryId.toString()),
      col((i) => i.owner),
      col((i) => i.attempt),
      col((i) => (i.outcome.kind === 'delivered' ? 'delivered' : 'pending')),
      col((i) => (i.outcome.kind === 'retry' ? iso(i.outcome.nextAttemptAt) : null)),
      col((i) => (i.outcome.kind === 'delivered' ? iso(i.now) : null)),
      col((i) => i.result.error),
      col((i) => iso(i.startedAt)),
      col((i) => i.result.durationMs),
      col((i) => i.result.status),
      col((i) => i.result.responseBody),
      col((i) => iso(i.now)),
      moves.map((t) => t.id.toString()),
      moves.map((t) => t.owner),
      moves.map((t) => t.host),
    ],
  );
  const written = new Set(rows.map((r) => BigInt(r.id)));
  return inputs.map((i) => ({ written: written.has(i.deliveryId), disabled: undefined }));
}

interface Pending {
  input: RecordInput;
  resolve(recorded: Recorded): void;
  reject(error: unknown): void;
}

interface Group {
  waiting: Pending[];
  /** a group is being written */
  busy: boolean;
  /** the next flush, when one is scheduled, and when (ms since the epoch) */
  timer: NodeJS.Timeout | undefined;
  at: number;
}

const groups = new WeakMap<Sql, Group>();

/**
 * Group commit: one group is written at a time, and the attempts that finish meanwhile are recorded
 * together in the next one (SQLite: one BEGIN/COMMIT for all; PostgreSQL: one statement). Each keeps
 * its own fenced update, so the outcome per delivery is what it would be alone; a database error
 * fails the whole group (and each claim stays until it expires: at least once).
 */
function groupCommit(sql: Sql, input: RecordInput): Promise<Recorded> {
  return new Promise<Recorded>((resolve, reject) => {
    let group = groups.get(sql);
    if (!group) groups.set(sql, (group = { waiting: [], busy: false, timer: undefined, at: 0 }));
    group.waiting.push({ input, resolve, reject });
    schedule(sql, group);
  });
}

/** The next flush of a group with records waiting, GROUP_MS or FREEING_MS away (more join while a group is being written). */
function schedule(sql: Sql, group: Group): void {
  if (group.busy || group.waiting.length === 0) return;
  const wait = group.waiting.some((p) => p.input.transfer === undefined) ? FREEING_MS : GROUP_MS;
  const at = Date.now() + wait;
  if (group.timer !== undefined && group.at <= at) return;
  clearTimeout(group.timer);
  group.at = at;
  group.timer = setTimeout(() => {
    group.timer = undefined;
    void flush(sql, group);
  }, wait);
}

async function flush(sql: Sql, group: Group): Promise<void> {
  group.busy = true;
  const items = group.waiting.splice(0);
  try {
    const inputs = items.map((item) => item.input);
    const results =
      sql.db.provider === 'postgresql'
        ? await recordGroupInOneStatement(sql, inputs)
        : await sql.exclusive((q) => recordGroupOnSqlite(q, inputs));
    items.forEach((item, i) => item.resolve(results[i]!));
  } catch (error) {
    for (const item of items) item.reject(error);
  }
  group.busy = false;
  schedule(sql, group);
}

/** SQLite: the same steps as recordWithPrisma, as plain statements on the sender's one connection. */
async function recordWithSql(q: Query, input: RecordInput): Promise<Recorded> {
  const { result, outcome, now } = input;
  const status = outcome.kind === 'retry' ? 'pending' : outcome.kind;
  const fenced = await q<{ id: bigint }>(
    `UPDATE webhook_deliveries SET attempts = ?, status = ?, next_attempt_at = COALESCE(?, next_attempt_at), delivered_at = ?,
       last_error = ?, lease_owner = NULL, lease_until = NULL, lease_host = NULL, updated_at = ?
     WHERE id = ? AND lease_owner = ? AND status = 'pending' RETURNING id`,
    [
      input.attempt,
      status,
      outcome.kind === 'retry' ? outcome.nextAttemptAt : null,
      outcome.kind === 'delivered' ? now : null,
      result.error,
      now,
      input.deliveryId,
      input.owner,
    ],
  );
  if (fenced.length !== 1) return { written: false, disabled: undefined };
  await q(
    `INSERT INTO webhook_attempts (delivery_id, number, started_at, duration_ms, response_status, error, response_body, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [input.deliveryId, input.attempt, input.startedAt, result.durationMs, result.status, result.error, result.responseBody, now],
  );
  if (outcome.kind === 'retry') return { written: true, disabled: undefined };
  if (outcome.kind === 'delivered') {
    await q('UPDATE webhook_subscriptions SET failure_streak = 0 WHERE id = ? AND failure_streak <> 0', [input.subscriptionId]);
    return { written: true, disabled: undefined };
  }
  const [sub] = await q<{ failure_streak: bigint; status: string }>(
    'UPDATE webhook_subscriptions SET failure_streak = failure_streak + 1 WHERE id = ? RETURNING failure_streak, status',
    [input.subscriptionId],
  );
  const reason = outcome.gone ? 'gone' : sub && Number(sub.failure_streak) >= DISABLE_AFTER_FAILED_DELIVERIES ? 'failures' : undefined;
  if (!sub || sub.status !== 'enabled' || !reason) return { written: true, disabled: undefined };
  await q(`UPDATE webhook_subscriptions SET status = 'disabled', disabled_reason = ?, updated_at = ? WHERE id = ?`, [
    reason,
    now,
    input.subscriptionId,
  ]);
  await q(
    `UPDATE webhook_deliveries SET status = 'failed', last_error = ?, lease_owner = NULL, lease_until = NULL, lease_host = NULL, updated_at = ?
     WHERE subscription_id = ? AND status = 'pending' AND (lease_until IS NULL OR lease_until < ?)`,
    [SUBSCRIPTION_DISABLED, now, input.subscriptionId, new Date()],
  );
  return { written: true, disabled: reason };
}

/** PostgreSQL: Prisma's interactive transaction (Db.query runs each statement on any connection of the pool). */
async function recordWithPrisma(db: Db, input: RecordInput): Promise<Recorded> {
  const { result, outcome, now } = input;
  return db.prisma.$transaction(
    async (tx) => {
      const realNow = new Date();
      const t = input.transfer;
      if (t)
        await tx.webhookDelivery.updateMany({ where: { id: t.id, leaseOwner: t.owner, status: 'pending' }, data: { leaseHost: t.host } });
      const fenced = await tx.webhookDelivery.updateMany({
        where: { id: input.deliveryId, leaseOwner: input.owner, status: 'pending' },
        data: {
          attempts: input.attempt,
          status: outcome.kind === 'retry' ? 'pending' : outcome.kind,
          ...(outcome.kind === 'retry' ? { nextAttemptAt: outcome.nextAttemptAt } : {}),
          deliveredAt: outcome.kind === 'delivered' ? now : null,
          lastError: result.error,
          leaseOwner: null,
          leaseUntil: null,
          leaseHost: null,
          updatedAt: now,
        },
      });
      if (fenced.count !== 1) return { written: false, disabled: undefined };
      await tx.webhookAttempt.create({
        data: {
          deliveryId: input.deliveryId,
          number: input.attempt,
          startedAt: input.startedAt,
          durationMs: result.durationMs,
          responseStatus: result.status,
          error: result.error,
          responseBody: result.responseBody,
          createdAt: now,
        },
      });
      if (outcome.kind === 'retry') return { written: true, disabled: undefined };
      if (outcome.kind === 'delivered') {
        await tx.webhookSubscription.updateMany({
          where: { id: input.subscriptionId, failureStreak: { not: 0 } },
          data: { failureStreak: 0 },
        });
        return { written: true, disabled: undefined };
      }
      const sub = await tx.webhookSubscription
        .update({
          where: { id: input.subscriptionId },
          data: { failureStreak: { increment: 1 } },
          select: { failureStreak: true, status: true },
        })
        .catch(() => undefined); // deleted meanwhile
      const reason = outcome.gone ? 'gone' : sub && sub.failureStreak >= DISABLE_AFTER_FAILED_DELIVERIES ? 'failures' : undefined;
      if (!sub || sub.status !== 'enabled' || !reason) return { written: true, disabled: undefined };
      await tx.webhookSubscription.update({
        where: { id: input.subscriptionId },
        data: { status: 'disabled', disabledReason: reason, updatedAt: now },
      });
      await tx.webhookDelivery.updateMany({
        where: { subscriptionId: input.subscriptionId, status: 'pending', OR: [{ leaseUntil: null }, { leaseUntil: { lt: realNow } }] },
        data: { status: 'failed', lastError: SUBSCRIPTION_DISABLED, leaseOwner: null, leaseUntil: null, leaseHost: null, updatedAt: now },
      });
      return { written: true, disabled: reason };
    },
    { timeout: 30_000, maxWait: 30_000 },
  );
}

/** A claimed delivery whose subscription is disabled or deleted: failed without an attempt. */
export async function failWithoutAttempt(sql: Sql, deliveryId: bigint, owner: string, reason: string, now: Date): Promise<boolean> {
  const done = await sql.query(
    `UPDATE webhook_deliveries SET status = 'failed', last_error = ?, lease_owner = NULL, lease_until = NULL, lease_host = NULL, updated_at = ?
     WHERE id = ? AND lease_owner = ? AND status = 'pending' RETURNING id`,
    [reason, now, deliveryId, owner],
  );
  return done.length === 1;
}
