import type { Db } from '@platform/db';
import { DISABLE_AFTER_FAILED_DELIVERIES } from '@platform/domain/webhooks';
import { recordGroupOnSqlite } from './record-sqlite';
import { SUBSCRIPTION_DISABLED, transfersOf, type RecordInput, type Recorded } from './record-input';
import { pendingFence, type Sql } from './sql';

export { SUBSCRIPTION_DELETED, SUBSCRIPTION_DISABLED, type RecordInput, type Recorded, type SlotTransfer } from './record-input';

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

/**
 * ISO text of the instants of one group, each distinct millisecond converted once (a group's attempts
 * share a few: toISOString was 4% of the PostgreSQL sender's busy time, bench/webhooks 2026-11-26).
 */
function isoOnce(): (d: Date | null) => string | null {
  const seen = new Map<number, string>();
  return (d) => {
    if (!d) return null;
    const ms = d.getTime();
    let text = seen.get(ms);
    if (text === undefined) seen.set(ms, (text = d.toISOString()));
    return text;
  };
}

/**
 * PostgreSQL, delivered or retry, for a group: the fenced updates, attempt rows, streak resets and
 * slot transfers as data-modifying CTEs over `unnest`. Every row is reached by primary key: the
 * records session forbids hash and merge joins (Sql.records), and the attempt rows come from what
 * the update returns, not from a join.
 */
async function recordGroupInOneStatement(sql: Sql, inputs: RecordInput[]): Promise<Recorded[]> {
  const col = <T>(f: (i: RecordInput) => T) => inputs.map(f);
  const moves = transfersOf(inputs);
  const iso = isoOnce();
  const rows = await sql.records<{ id: bigint }>(
    `WITH v AS (
       SELECT * FROM unnest(?::bigint[], ?::text[], ?::int[], ?::text[], ?::timestamp[], ?::timestamp[], ?::text[], ?::timestamp[],
                            ?::int[], ?::int[], ?::text[], ?::timestamp[])
         AS v(id, owner, attempt, status, next_at, delivered_at, last_error, started_at, duration_ms, response_status, response_body, now_at)
     ), upd AS (
       UPDATE webhook_deliveries d SET attempts = v.attempt, status = v.status, next_attempt_at = COALESCE(v.next_at, d.next_attempt_at),
         delivered_at = v.delivered_at, last_error = v.last_error, lease_owner = NULL, lease_until = NULL, lease_host = NULL, updated_at = v.now_at
       FROM v WHERE d.id = v.id AND d.lease_owner = v.owner AND ${pendingFence('d')}
       RETURNING d.id, d.subscription_id, d.status, v.attempt, v.started_at, v.duration_ms, v.response_status, v.last_error, v.response_body, v.now_at
     ), ins AS (
       INSERT INTO webhook_attempts (delivery_id, number, started_at, duration_ms, response_status, error, response_body, created_at)
       SELECT id, attempt, started_at, duration_ms, response_status, last_error, response_body, now_at FROM upd RETURNING delivery_id
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
  /** a waiting record frees a slot nobody took over (FREEING_MS) */
  freeing: boolean;
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
    if (!group) groups.set(sql, (group = { waiting: [], freeing: false, busy: false, timer: undefined, at: 0 }));
    group.waiting.push({ input, resolve, reject });
    if (input.transfer === undefined) group.freeing = true;
    schedule(sql, group);
  });
}

/** The next flush of a group with records waiting, GROUP_MS or FREEING_MS away (more join while a group is being written). */
function schedule(sql: Sql, group: Group): void {
  if (group.busy || group.waiting.length === 0) return;
  const wait = group.freeing ? FREEING_MS : GROUP_MS;
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
  group.freeing = false;
  try {
    const inputs = items.map((item) => item.input);
    const results =
      sql.db.provider === 'postgresql'
        ? await recordGroupInOneStatement(sql, inputs)
        : await sql.exclusive((q) => recordGroupOnSqlite(q, inputs));
    sql.recorded(results.length);
    items.forEach((item, i) => item.resolve(results[i]!));
  } catch (error) {
    for (const item of items) item.reject(error);
  }
  group.busy = false;
  schedule(sql, group);
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
