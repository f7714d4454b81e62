import { DISABLE_AFTER_FAILED_DELIVERIES } from '@platform/domain/webhooks';
import { SUBSCRIPTION_DISABLED, transfersOf, type RecordInput, type Recorded } from './record-input';
import type { Query } from './sql';

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
/** The retried ones: due again at next_at, the attempt's error kept. */
const RECORD_RETRIED = perShape(
  (n) => `WITH v(id, owner, attempt, next_at, last_error, now_at) AS (VALUES ${tuples(n, 6)})
  UPDATE webhook_deliveries SET attempts = v.attempt, next_attempt_at = v.next_at, delivered_at = NULL, last_error = v.last_error,
    lease_owner = NULL, lease_until = NULL, lease_host = NULL, updated_at = v.now_at
  FROM v WHERE webhook_deliveries.id = v.id AND webhook_deliveries.lease_owner = v.owner AND webhook_deliveries.status = 'pending'
  RETURNING id`,
);
/** The delivered ones, the common case: four values a row, not eight (binding them was about a fifth of the statement, bench/webhooks 2026-12-03). */
const RECORD_DELIVERED = perShape(
  (n) => `WITH v(id, owner, attempt, now_at) AS (VALUES ${tuples(n, 4)})
  UPDATE webhook_deliveries SET attempts = v.attempt, status = 'delivered', delivered_at = v.now_at, last_error = NULL,
    lease_owner = NULL, lease_until = NULL, lease_host = NULL, updated_at = v.now_at
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
export async function recordGroupOnSqlite(q: Query, inputs: RecordInput[]): Promise<Recorded[]> {
  for (const chunk of chunksOf(transfersOf(inputs))) {
    const params: unknown[] = [];
    for (const t of chunk) params.push(t.id, t.owner, t.host);
    await q(MOVE_SLOTS(chunk.length), params);
  }
  const written = new Set<bigint>();
  const ok: RecordInput[] = [];
  const fenced = async (chunk: RecordInput[], text: string, params: unknown[]) => {
    for (const r of await q<{ id: bigint }>(text, params)) written.add(BigInt(r.id));
    for (const i of chunk) if (written.has(i.deliveryId)) ok.push(i);
  };
  for (const chunk of chunksOf(inputs.filter((i) => i.outcome.kind === 'delivered'))) {
    const params: unknown[] = [];
    for (const i of chunk) params.push(i.deliveryId, i.owner, i.attempt, i.now);
    await fenced(chunk, RECORD_DELIVERED(chunk.length), params);
  }
  for (const chunk of chunksOf(inputs.filter((i) => i.outcome.kind === 'retry'))) {
    const params: unknown[] = [];
    for (const i of chunk)
      params.push(i.deliveryId, i.owner, i.attempt, i.outcome.kind === 'retry' ? i.outcome.nextAttemptAt : null, i.result.error, i.now);
    await fenced(chunk, RECORD_RETRIED(chunk.length), params);
  }
  for (const chunk of chunksOf(ok)) {
    const params: unknown[] = [];
    for (const i of chunk)
      params.push(i.deliveryId, i.attempt, i.startedAt, i.result.durationMs, i.result.status, i.result.error, i.result.responseBody, i.now);
    await q(INSERT_ATTEMPTS(chunk.length), params);
  }
  const delivered = [...new Set(ok.filter((i) => i.outcome.kind === 'delivered').map((i) => i.subscriptionId))];
  for (const chunk of chunksOf(delivered)) await q(RESET_STREAKS(chunk.length), chunk);
  const out: Recorded[] = [];
  for (const input of inputs)
    out.push(
      input.outcome.kind === 'failed' ? await recordWithSql(q, input) : { written: written.has(input.deliveryId), disabled: undefined },
    );
  return out;
}

/** SQLite: the same steps as recordWithPrisma (record.ts), as plain statements on the sender's one connection: a failed delivery, which may disable its subscription. */
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
