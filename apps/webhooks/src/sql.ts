import { openPgSession, SQLITE_BUSY_TIMEOUT_MS, startWalCheckpointer, type Db, type PgSession, type ScriptPart } from '@platform/db';
import { createDeliveriesVacuum } from './vacuum';

/** SQLite's default, restored on the connection when the sender stops. */
const DEFAULT_WAL_AUTOCHECKPOINT = 1000;

export type Query = <T = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<T[]>;

/**
 * Any number that no other part of the platform takes as an advisory lock: the senders' claims hold
 * it for the length of one claim transaction (decisions §11.7, docs/webhooks-sender.md).
 */
export const CLAIM_LOCK_KEY = 7_311_011;

/**
 * PostgreSQL: the fence `status = 'pending'` on rows a statement reaches by id (checked again on the
 * row as updated), written so that no plan can reach those rows through an index on status instead.
 * Statistics taken while nothing was pending (an ANALYZE after a drained backlog, before the next
 * burst) estimate one pending row; the planner then scanned every pending row through the status
 * index and joined the ids to it, in a claim re-running the pick for each of them (a claim of 90 s
 * with 20,000 due; docs/webhooks-sender.md). Not indexable, the fence is checked on the rows found
 * by primary key.
 */
export const pendingFence = (alias: string) => `(${alias}.status = 'pending') IS TRUE`;

/**
 * The sender's statements go through the driver (Db.query: `?` placeholders, bigint integers, Date
 * times, the same on both providers), not through Prisma: the hot path is a handful of statements
 * repeated thousands of times, prepared once on SQLite.
 *
 * SQLite: one connection for every statement of the process, and the statements run one after
 * another (a queue), so a transaction (`BEGIN IMMEDIATE` ... `COMMIT`) never interleaves with
 * another statement of the process, and no second connection of the process ever waits on this
 * one's write lock (better-sqlite3 waits synchronously: that would stall the process).
 * PostgreSQL: statements run on the pool; `exclusive` transactions on a connection of the sender's
 * own, one after another.
 */
export interface Sql {
  db: Db;
  query: Query;
  /**
   * `fn` in a transaction that no other sender's `exclusive` transaction overlaps, on any process:
   * SQLite `BEGIN IMMEDIATE` (one writer at a time); PostgreSQL a transaction holding the advisory
   * lock CLAIM_LOCK_KEY, so each statement of `fn` sees every claim committed before it. ROLLBACK on
   * a throw. `last` runs the transaction's last statement and commits (nothing may follow it).
   * PostgreSQL: the BEGIN and the lock go with the first statement and the COMMIT with `last`, in
   * one round trip each (pgScript): a claim of a walk and a take is two round trips, not four.
   */
  exclusive<T>(fn: (query: Query, last: Query) => Promise<T>): Promise<T>;
  /**
   * One statement on the sender's own connection, between its exclusive transactions: PostgreSQL
   * the session (prepared once, no pool); SQLite as `query`. For the idle poll, which runs every
   * second for ever: through the pool (connection hand-out, an unprepared statement) an idle
   * sender measured about twice the CPU it does on the session.
   */
  own: Query;
  /**
   * The group commits of attempts' records, one statement at a time: PostgreSQL a session of their
   * own (prepared once, instead of parsed and planned on every group through the pool; its commits
   * do not wait for the disk, as a claim's: a record lost to a server crash leaves its delivery
   * claimed, to be sent again when the claim expires, which at least once allows); SQLite as `query`.
   */
  records: Query;
  /** `count` deliveries were recorded (PostgreSQL: their dead index entries are vacuumed away now and then: vacuum.ts) */
  recorded(count: number): void;
  close(): Promise<void>;
}

/** Runs tasks one after another, each after the previous one settled; `yieldFirst`: each on a turn of the event loop of its own (SQLite: I/O is read between two transactions, never inside one). */
function serialiser(yieldFirst = false) {
  let tail: Promise<unknown> = Promise.resolve();
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = yieldFirst ? tail.then(turn, turn).then(task) : tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}

async function inTransaction<T>(begin: () => Promise<unknown>, query: Query, fn: (query: Query, last: Query) => Promise<T>): Promise<T> {
  await begin();
  try {
    const out = await fn(query, query);
    await query('COMMIT');
    return out;
  } catch (error) {
    await query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * PostgreSQL's exclusive transaction on a session, in as few round trips as its statements allow:
 * the BEGIN and the lock are sent with the first statement, the COMMIT with `last` (or alone when
 * `fn` ends without it); nothing is sent for an `fn` that runs no statement. A transaction of one
 * statement (`last` first: the lone claim) is the lock and it in one script, the script's own
 * transaction (pgScript), without BEGIN or COMMIT. Each statement still sees every claim committed
 * before it: the lock is taken before the first one runs.
 */
async function pgTransaction<T>(session: PgSession, lock: string, fn: (query: Query, last: Query) => Promise<T>): Promise<T> {
  let state = 'idle' as 'idle' | 'open' | 'committed';
  const run = async (parts: ScriptPart[]) => {
    const opening = state === 'idle';
    if (state === 'committed') throw new Error('exclusive: a statement after the last one');
    state = 'open';
    const results = await session.script(opening ? ['BEGIN', lock, ...parts] : parts);
    return results.slice(opening ? 2 : 0);
  };
  const query: Query = async <R>(sql: string, params: unknown[] = []) => (await run([{ sql, params }]))[0] as R[];
  const last: Query = async <R>(sql: string, params: unknown[] = []) => {
    if (state === 'idle') {
      // A failing script is rolled back by the server: nothing to end (the state stays idle).
      const [, rows] = await session.script([lock, { sql, params }]);
      state = 'committed';
      return rows as R[];
    }
    const [rows] = await run([{ sql, params }, 'COMMIT']);
    state = 'committed';
    return rows as R[];
  };
  try {
    const out = await fn(query, last);
    if (state === 'open') await session.script(['COMMIT']);
    return out;
  } catch (error) {
    if (state !== 'idle') await session.script(['ROLLBACK']).catch(() => undefined);
    throw error;
  }
}

const isBusy = (error: unknown) => /SQLITE_BUSY/.test(String((error as { code?: unknown }).code ?? error));

/**
 * SQLite's `BEGIN IMMEDIATE` without blocking the process: while another process holds the write
 * lock (the API writing an event), it is tried again every millisecond from the event loop, instead
 * of better-sqlite3 waiting synchronously through SQLite's busy handler (whose sleeps grow to 100 ms,
 * and which stops every attempt of the sender meanwhile). Gives up after the usual busy timeout.
 */
async function beginImmediate(raw: Query): Promise<void> {
  const until = Date.now() + SQLITE_BUSY_TIMEOUT_MS;
  for (;;) {
    await raw('PRAGMA busy_timeout = 0');
    try {
      await raw('BEGIN IMMEDIATE');
      return;
    } catch (error) {
      if (!isBusy(error) || Date.now() > until) throw error;
    } finally {
      await raw(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

export interface SqlOptions {
  /** PostgreSQL: VACUUM webhook_deliveries after this many recorded deliveries (0: never; vacuum.ts) */
  vacuumEvery?: number;
  /** what went wrong with one (logged) */
  warn?: (error: unknown) => void;
}

export function createSql(db: Db, options: SqlOptions = {}): Sql {
  if (db.provider === 'postgresql') {
    // The claims' settings (see `exclusive`), for the session's life: its idle reads (one index read
    // each) plan the same with them, and each claim's BEGIN is two statements, not ten.
    const session = openPgSession(db.url, [
      'SET synchronous_commit = off',
      'SET plan_cache_mode = force_generic_plan',
      'SET enable_sort = off',
      'SET enable_incremental_sort = off',
      'SET enable_hashjoin = off',
      'SET enable_mergejoin = off',
      'SET enable_bitmapscan = off',
      'SET enable_seqscan = off',
      'SET jit = off',
    ]);
    // No hash or merge joins in records either (see `exclusive`): with statistics saying a backlog
    // was pending, a group of a few hundred hashed the whole table to update them by id. No
    // sequential scans where an index applies, generic plans, as in `exclusive`.
    const recordSession = openPgSession(db.url, [
      'SET synchronous_commit = off',
      'SET jit = off',
      'SET enable_hashjoin = off',
      'SET enable_mergejoin = off',
      'SET enable_seqscan = off',
      'SET plan_cache_mode = force_generic_plan',
    ]);
    const serial = serialiser();
    const recordSerial = serialiser();
    const vacuum = createDeliveriesVacuum(db.url, options.vacuumEvery ?? 0, options.warn ?? (() => undefined));
    const query: Query = (sql, params = []) => session.query(sql, params);
    return {
      db,
      query: (sql, params = []) => db.query(sql, params),
      own: (sql, params = []) => serial(() => query(sql, params)),
      records: (sql, params = []) => recordSerial(() => recordSession.query(sql, params)),
      recorded: (count) => vacuum.recorded(count),
      // On the session set up above, BEGIN and the lock with the first statement, COMMIT with the
      // last (pgTransaction): a claim is two round trips. A claim's commit does not wait for the
      // disk (synchronous_commit off): a claim lost to a server crash only leaves its deliveries to
      // be claimed and sent again, which at least once allows, and waiting for the flush cost
      // milliseconds on every claim. No sorts:
      // the claim's statements read in index order and stop early; a sort there means the planner
      // took another index on stale statistics and read a backlog (walk.ts, IN_CLAIM_ORDER). No
      // hash or merge joins: a claim joins a few hundred rows at most to their primary keys, and
      // with statistics saying a backlog is pending the planner costed hashing the whole table below
      // that (a sequential scan of webhook_deliveries on every claim: 8 of a claim's 15 ms at
      // 20,000 rows; test/claim-reads.e2e.test.ts). No bitmap scans: a plain index scan marks the
      // dead entries it passes, a bitmap scan re-reads them on every claim (46 ms for 60,000). No
      // sequential scans where an index reaches the rows: a statement first planned on a table
      // never analysed (a new deployment, its sender started on an empty table) kept a sequential
      // scan inside the take's loop until the first ANALYZE, every claim reading the whole table
      // (claim-reads, "never analysed"); the ledger and other small tables are still read whole
      // where no index applies. No JIT (off on every connection anyway): compiling cost 30-50 ms a
      // claim (docs/webhooks-sender.md).
      // Generic plans: the statements are prepared on the session, and PostgreSQL planned the take
      // afresh for its parameters on every claim (about 1.3 of its 2.3 ms at 500 events/s); the
      // settings above leave one plan for them whatever the values (claim-reads checks what it reads).
      exclusive: (fn) => serial(() => pgTransaction(session, `SELECT pg_advisory_xact_lock(${CLAIM_LOCK_KEY})`, fn)),
      close: async () => {
        await session.close();
        await recordSession.close();
        await vacuum.close();
      },
    };
  }
  const serial = serialiser(true);
  const raw: Query = (sql, params = []) => db.query(sql, params);
  // Checkpoints run on a worker thread, not inside this connection's commits (startWalCheckpointer).
  const checkpointer = startWalCheckpointer(db.url);
  void serial(() => raw('PRAGMA wal_autocheckpoint = 0')).catch(() => undefined);
  const thenCheckpoint = async <T>(work: Promise<T>): Promise<T> => {
    try {
      return await work;
    } finally {
      checkpointer.nudge();
    }
  };
  return {
    db,
    query: (sql, params = []) => serial(() => thenCheckpoint(raw(sql, params))),
    own: (sql, params = []) => serial(() => db.query(sql, params)),
    records: (sql, params = []) => serial(() => thenCheckpoint(raw(sql, params))),
    recorded: () => undefined,
    exclusive: (fn) => serial(() => thenCheckpoint(inTransaction(() => beginImmediate(raw), raw, fn))),
    close: async () => {
      await serial(() => raw(`PRAGMA wal_autocheckpoint = ${DEFAULT_WAL_AUTOCHECKPOINT}`)).catch(() => undefined);
      await checkpointer.close();
    },
  };
}
