import { foldDeliveryCounts, openPgSession, type PgSession } from '@platform/db';
import type { Logger } from 'pino';
import type { SenderClock } from './clock';
import { compactHistory } from './compact';
import type { Query, Sql } from './sql';

/**
 * Issue 48: the delivery history does not grow without end, and the counts /metrics shows stay a
 * few rows. Every `everyMs` each sender:
 *
 * - folds the ledger of counts by status (PostgreSQL; packages/db delivery-counts.ts), and
 * - removes delivered and failed deliveries whose last change (`updated_at`, service clock) is older
 *   than the retention age, with their attempts, in batches of `batch` deliveries, each batch one
 *   transaction, pausing between batches as long as the batch took (the claims and records of this
 *   sender and the others keep at least half of the database's time). A pending delivery is never
 *   removed, however old: every DELETE checks the status and the age on the row itself, in the
 *   statement, so a delivery made pending again meanwhile (a redelivery) stays.
 *
 * Finding the work without an index of its own: ids grow with time, so the history is walked by
 * primary key from its start, a batch at a time, up to the first delivery created inside the
 * retention window (created_at <= updated_at: nothing at or past it can be old enough). A pass with
 * nothing to remove reads one row, or the few old ones kept (pending, or made pending again and
 * finished since). No index was added: one on (updated_at) of finished rows would cost every
 * finished delivery an index entry and a migration an index build over the whole history, which
 * holds writes on PostgreSQL while it runs.
 *
 * PostgreSQL: on a connection of its own, beside the claims'; one sender at a time removes (an
 * advisory lock tried per batch: another sender's pass under way ends this one's). SQLite: each
 * batch is an exclusive transaction of the sender's one connection, between its claims and records,
 * and gives the pages it freed back to the file system (`PRAGMA incremental_vacuum`). PostgreSQL
 * gives them back after the pass, when a table's file is four times the pages its rows take or more
 * (compact.ts).
 */
export interface RetentionSettings {
  /** Finished deliveries older than this are removed; 0 keeps everything. */
  ageMs: number;
  /** Deliveries a batch may remove. */
  batch: number;
  /** How often the fold and a pass run. */
  everyMs: number;
}

export interface RetentionPass {
  deliveries: number;
  attempts: number;
  batches: number;
}

export interface Maintenance {
  /** A pass now (tests, benchmarks); resolves when it has walked up to the retention window. */
  runOnce(): Promise<RetentionPass>;
  close(): Promise<void>;
}

/** Any number no other part of the platform takes as an advisory lock: one retention batch at a time. */
export const RETENTION_LOCK_KEY = 7_311_049;

const FINISHED = `status IN ('delivered', 'failed')`;

/** Passes that removed nothing look at the files' sizes every this many (about once a minute at the default 10 s). */
const COMPACTION_LOOK_EVERY = 6;

interface Deps {
  sql: Sql;
  clock: SenderClock;
  logger: Logger;
  settings: RetentionSettings;
}

export function startMaintenance({ sql, clock, logger, settings }: Deps): Maintenance {
  const pg = sql.db.provider === 'postgresql';
  let session: PgSession | undefined;
  // PostgreSQL: its own connection, so a batch never delays a claim; commits need not wait for the
  // disk (a batch lost to a crash is removed again by the next pass).
  const own: Query = pg
    ? (text, params = []) => (session ??= openPgSession(sql.db.url, ['SET synchronous_commit = off'])).query(text, params)
    : sql.query;
  let closing = false;
  let running: Promise<RetentionPass> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  /** passes run so far (PostgreSQL: when the files are looked at) */
  let passes = 0;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      t.unref();
    });

  /** One batch after `after`: the ids it covered and what it removed; `done` once the window is reached. */
  async function batch(after: bigint, cutoff: Date): Promise<{ upTo: bigint; deliveries: number; attempts: number; done: boolean }> {
    const rows = await own<{ id: bigint; created_at: Date }>(
      'SELECT id, created_at FROM webhook_deliveries WHERE id > ? ORDER BY id LIMIT ?',
      [after, settings.batch],
    );
    const inWindow = rows.findIndex((r) => r.created_at.getTime() >= cutoff.getTime());
    const old = inWindow < 0 ? rows : rows.slice(0, inWindow);
    const done = inWindow >= 0 || rows.length < settings.batch;
    if (old.length === 0) return { upTo: after, deliveries: 0, attempts: 0, done: true };
    const upTo = old[old.length - 1]!.id;
    const removed = pg ? await removePg(after, upTo, cutoff) : await removeSqlite(after, upTo, cutoff);
    if (removed === undefined) return { upTo, deliveries: 0, attempts: 0, done: true };
    return { upTo, ...removed, done };
  }

  /** One statement, so one transaction: the deliveries, then the attempts of those it removed (by their ids, on the attempts' index). */
  async function removePg(after: bigint, upTo: bigint, cutoff: Date): Promise<{ deliveries: number; attempts: number } | undefined> {
    const [row] = await own<{ ok: boolean; deliveries: bigint; attempts: bigint }>(
      `WITH lock AS (SELECT pg_try_advisory_xact_lock(${RETENTION_LOCK_KEY}) AS ok),
       gone AS (
         DELETE FROM webhook_deliveries WHERE id > ? AND id <= ? AND ${FINISHED} AND updated_at < ? AND (SELECT ok FROM lock)
         RETURNING id
       ),
       attempts AS (DELETE FROM webhook_attempts WHERE delivery_id = ANY (ARRAY(SELECT id FROM gone)) RETURNING 1)
       SELECT (SELECT ok FROM lock) AS ok, (SELECT COUNT(*) FROM gone) AS deliveries, (SELECT COUNT(*) FROM attempts) AS attempts`,
      [after, upTo, cutoff],
    );
    // Another sender's batch holds the lock: its pass covers this range.
    if (!row?.ok) return undefined;
    return { deliveries: Number(row.deliveries), attempts: Number(row.attempts) };
  }

  /** The deliveries, then the attempts in the range whose delivery is gone (any left by an earlier removal too). */
  async function removeSqlite(after: bigint, upTo: bigint, cutoff: Date): Promise<{ deliveries: number; attempts: number }> {
    return sql.exclusive(async (q) => {
      const gone = await q<{ id: bigint }>(
        `DELETE FROM webhook_deliveries WHERE id > ? AND id <= ? AND ${FINISHED} AND updated_at < ? RETURNING id`,
        [after, upTo, cutoff],
      );
      if (gone.length === 0) return { deliveries: 0, attempts: 0 };
      const attempts = await q<{ id: bigint }>(
        `DELETE FROM webhook_attempts WHERE delivery_id > ? AND delivery_id <= ?
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = webhook_attempts.delivery_id) RETURNING id`,
        [after, upTo],
      );
      // The pages they held go back to the file system (the file shrinks at the next checkpoint) on
      // a file with auto_vacuum=INCREMENTAL, every file the migrations made (packages/db sqlite.ts).
      // It moves the file's last pages into the freed ones: a 10,000,000-delivery pass took 337 s
      // against 156 s (bench/scale). Without it the file kept its largest size for ever (5.1 GB
      // after that pass, 3 MB of it in use).
      await q('PRAGMA incremental_vacuum');
      return { deliveries: gone.length, attempts: attempts.length };
    });
  }

  async function pass(): Promise<RetentionPass> {
    const total: RetentionPass = { deliveries: 0, attempts: 0, batches: 0 };
    await foldDeliveryCounts(sql.db.provider, own);
    if (settings.ageMs <= 0) return total;
    await clock.sync();
    const cutoff = new Date(clock.now().getTime() - settings.ageMs);
    let after = 0n;
    while (!closing) {
      const started = performance.now();
      const step = await batch(after, cutoff);
      total.batches++;
      total.deliveries += step.deliveries;
      total.attempts += step.attempts;
      after = step.upTo;
      if (step.done) break;
      await pause(Math.max(1, performance.now() - started));
    }
    // A pass that removed rows looks at the files at once; one that removed none (an idle
    // deployment, every 10 s) looks at its first pass and then every COMPACTION_LOOK_EVERY-th,
    // for a table bloated otherwise (a sender stopped before it compacted): six statements each.
    if (pg && !closing && (total.deliveries > 0 || passes % COMPACTION_LOOK_EVERY === 0)) await compact(total);
    passes++;
    return total;
  }

  let compactionFailures = 0;
  /** the tables the last look saw bloated (compact.ts: a second look in a row compacts them) */
  const suspects = new Set<string>();
  /** PostgreSQL: the disk back once a pass left a table much larger than its rows (compact.ts); never fails the pass. */
  async function compact(pass: RetentionPass): Promise<void> {
    try {
      const removed = { webhook_deliveries: pass.deliveries, webhook_attempts: pass.attempts };
      for (const done of await compactHistory(own, removed, () => closing, suspects)) logger.info(done, 'webhook history compacted');
      compactionFailures = 0;
    } catch (error) {
      // e.g. a role that does not own the tables (refused before anything moves): the history is kept all the same.
      if (++compactionFailures === 1 || compactionFailures % 50 === 0)
        logger.warn({ err: error, failures: compactionFailures }, 'webhook history compaction failed; the tables keep their size');
    }
  }

  function runOnce(): Promise<RetentionPass> {
    running ??= pass().finally(() => (running = undefined));
    return running;
  }

  function schedule(ms: number): void {
    if (closing) return;
    timer = setTimeout(() => {
      runOnce().then(
        (done) => {
          failures = 0;
          if (done.deliveries > 0) logger.info({ ...done, ageMs: settings.ageMs }, 'webhook history older than the retention age removed');
          schedule(settings.everyMs);
        },
        (error: unknown) => {
          // e.g. the database is down: the next tick tries again.
          if (++failures === 1 || failures % 50 === 0) logger.warn({ err: error, failures }, 'webhook retention pass failed; retrying');
          schedule(settings.everyMs);
        },
      );
    }, ms);
    // A sender with nothing else to do exits on its own loop's terms, not this timer's.
    timer.unref();
  }

  schedule(settings.everyMs);
  return {
    runOnce,
    async close() {
      closing = true;
      clearTimeout(timer);
      await running?.catch(() => undefined);
      await session?.close();
    },
  };
}
