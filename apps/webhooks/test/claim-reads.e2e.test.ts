/*
 * PostgreSQL: what a claim reads. A claim takes a few deliveries (the host's slots and what it may
 * hold for them), so it must read about that many rows of webhook_deliveries however long the
 * backlog, and whatever the planner's statistics say. Both went wrong before: the pick sorted every
 * due row of a subscription on every claim (a claim cost grew with the backlog), and statistics
 * taken while nothing was pending made the planner reach the rows through the status index and
 * re-run the pick for each pending row (claims of 90 s; docs/webhooks-sender.md); statistics
 * saying a backlog was pending made it hash the whole table to join the few rows it leases (and a
 * group record, the few rows it writes). The rows a claim
 * transaction reads come from PostgreSQL's own counters for the transaction
 * (pg_stat_xact_user_tables), read just before its COMMIT. The indexes that the claims read are
 * partial there: a delivered row leaves them (a record writes fewer index entries).
 */
import { describe, expect, it } from 'vitest';
import { wakeSenders } from '@platform/db';
import { nextDueAt } from '../src/claimed';
import { createSql, type Query, type Sql } from '../src/sql';
import {
  clockNow,
  closedAfterEach,
  deliveries,
  fileDatabase,
  inProcessSender,
  receiver,
  setClock,
  storeAndApp,
  subscription,
  waitFor,
} from './helpers';

const BACKLOG = 2_000;
/**
 * The sender's concurrency: it may have that many in flight and four times as many held, and the
 * claim steps over those at the head of the queue.
 */
const IN_HAND = 16;

const database = fileDatabase(async (db) => {
  await setClock(db, new Date('2026-11-22T04:05:01.000Z'));
});
const track = closedAfterEach();

const READ = `SELECT COALESCE(SUM(seq_tup_read + COALESCE(idx_tup_fetch, 0)), 0) AS n
  FROM pg_stat_xact_user_tables WHERE relname = 'webhook_deliveries'`;

/**
 * `sql` whose exclusive transactions (the claims) each report the rows of webhook_deliveries they
 * read (the transaction's counters are cumulative until the session reports them, between
 * transactions: read at its start and before its COMMIT).
 */
function countingReads(sql: Sql, reads: number[], byStatement?: Map<string, number>): Sql {
  return {
    ...sql,
    exclusive: (fn) =>
      sql.exclusive(async (q) => {
        const count = async () => Number((await q<{ n: bigint }>(READ))[0]?.n ?? 0);
        const start = await count();
        const traced: typeof q = async (text, params) => {
          const before = byStatement ? await count() : 0;
          const out = await q(text, params);
          if (byStatement) {
            const key = text.replace(/\s+/g, ' ').slice(0, 60);
            byStatement.set(key, Math.max(byStatement.get(key) ?? 0, (await count()) - before));
          }
          return out as never;
        };
        // Every statement through `traced`, the last one too: the counters are read before the COMMIT.
        const out = await fn(traced, traced);
        reads.push((await count()) - start);
        return out;
      }),
  };
}

/**
 * `sql` whose group records each report the rows of webhook_deliveries they read: each record
 * statement runs in a transaction of its own on the records session, with the counters read before
 * its COMMIT (the sender writes one group at a time, so nothing else runs on the session meanwhile).
 */
function countingRecordReads(sql: Sql, reads: number[]): Sql {
  return {
    ...sql,
    records: async (text, params) => {
      const count = async () => Number((await sql.records<{ n: bigint }>(READ))[0]?.n ?? 0);
      await sql.records('BEGIN');
      try {
        const start = await count();
        const out = await sql.records(text, params);
        reads.push((await count()) - start);
        await sql.records('COMMIT');
        return out as never;
      } catch (error) {
        await sql.records('ROLLBACK');
        throw error;
      }
    },
  };
}

/** Many claims, none reading more than a quarter of the backlog (the message says which statement read most). */
function expectFewRows(reads: number[], byStatement: Map<string, number>): void {
  expect(reads.length).toBeGreaterThan(10);
  const most = Math.max(...reads);
  expect(most, `rows read by each claim: ${reads.join(' ')}; most by one statement: ${JSON.stringify([...byStatement])}`).toBeLessThan(
    BACKLOG / 4,
  );
}

describe.runIf(process.env.TEST_DATABASE_URL)('a claim on PostgreSQL', () => {
  it('reads about the rows it takes, not the backlog, with statistics taken while nothing was pending', async () => {
    const { db } = database;
    const r = track(await receiver());
    const f = await storeAndApp(db);
    // A drained backlog of another subscription, as after a burst: everything delivered, then the
    // statistics taken (and kept: no autovacuum on the table in this test's database).
    const earlier = await subscription(db, f, `${r.url}/earlier`);
    const start = (await clockNow(db)).getTime() - 600_000;
    for (let i = 0; i < 10; i++) await deliveries(db, f, earlier, 2_000, { nextAttemptAt: new Date(start + i * 1000) });
    await db.query(`UPDATE webhook_deliveries SET status = 'delivered', attempts = 1`);
    await db.query('ALTER TABLE webhook_deliveries SET (autovacuum_enabled = false)');
    await db.query('ANALYZE webhook_deliveries');
    const [stats] = await db.query<{ values: string }>(
      `SELECT most_common_vals::text AS values FROM pg_stats WHERE tablename = 'webhook_deliveries' AND attname = 'status'`,
    );
    expect(stats?.values).toBe('{delivered}'); // the planner believes nothing is pending

    // The next burst: one subscription's long backlog, and two others with a few deliveries due
    // after it (a claim that found their rows through the index on (status, next_attempt_at) would
    // read the long backlog first, every time).
    const sub = await subscription(db, f, `${r.url}/a`);
    const small = [await subscription(db, f, `${r.url}/b`), await subscription(db, f, `${r.url}/c`)];
    const now = await clockNow(db);
    const ids = await deliveries(db, f, sub, BACKLOG, { nextAttemptAt: new Date(now.getTime() - 60_000) });
    for (const s of small) ids.push(...(await deliveries(db, f, s, 20)));
    const reads: number[] = [];
    const byStatement = new Map<string, number>();
    const env = { PLATFORM_SENDER_CONCURRENCY: String(IN_HAND) };
    await track(inProcessSender(db, env, {}, (sql) => countingReads(sql, reads, byStatement)));
    await waitFor(() => r.received.length >= ids.length, 'every delivery of the burst received');
    expect(new Set(r.received.map((x) => x.webhookId))).toEqual(new Set(ids));

    // A claim reads the live claims, the next subscription ids, each one's oldest due row and due
    // count (capped at what the sender may take: 16 to start and 64 to hold) and the rows it takes,
    // and three of those steps go over what the sender has in hand at the head of a queue (in
    // flight, held, being recorded): a few hundred rows at most here, whatever the backlog. Aggregating or sorting the due rows, or finding a
    // subscription's rows through the (status, next_attempt_at) index, read 2,000 to 26,000 rows a
    // claim on these statistics.
    expectFewRows(reads, byStatement);
  });

  it('reads about the rows it takes, and a record about the rows it writes, with statistics taken while a backlog was pending; the queue indexes keep no delivered row', async () => {
    const { db } = database;
    const r = track(await receiver());
    const f = await storeAndApp(db);
    // The table holds a backlog and the statistics say so (an autovacuum's ANALYZE during a
    // burst): the planner then costed hashing the whole table below a primary-key lookup for each
    // row the claim takes, and every claim read every row of webhook_deliveries to lease a few.
    await db.query('TRUNCATE webhook_attempts, webhook_deliveries');
    const sub = await subscription(db, f, `${r.url}/pending`);
    const ids = await deliveries(db, f, sub, BACKLOG, { nextAttemptAt: new Date((await clockNow(db)).getTime() - 60_000) });
    await db.query('VACUUM ANALYZE webhook_deliveries');
    const [stats] = await db.query<{ values: string }>(
      `SELECT most_common_vals::text AS values FROM pg_stats WHERE tablename = 'webhook_deliveries' AND attname = 'status'`,
    );
    expect(stats?.values).toBe('{pending}');
    const reads: number[] = [];
    const byStatement = new Map<string, number>();
    const recordReads: number[] = [];
    const hotBefore = await rowUpdates(db);
    let senderSql: Sql | undefined;
    const sender = await track(
      inProcessSender(db, { PLATFORM_SENDER_CONCURRENCY: String(IN_HAND) }, undefined, (sql) => {
        senderSql = sql;
        return countingRecordReads(countingReads(sql, reads, byStatement), recordReads);
      }),
    );
    await waitFor(() => r.received.length >= ids.length, 'every delivery of the backlog received');
    expect(new Set(r.received.map((x) => x.webhookId))).toEqual(new Set(ids));
    expectFewRows(reads, byStatement);
    // A group record reads the rows it updates (the attempts of about 10 ms, at most the sender's
    // concurrency and what it holds). Hashing the table read all 2,000 on every group.
    expect(recordReads.length).toBeGreaterThan(10);
    expect(Math.max(...recordReads), `rows read by each group record: ${recordReads.join(' ')}`).toBeLessThan(BACKLOG / 4);

    // The indexes the claims and the idle poll read hold the queue, not the history: a delivered
    // row gets no entry in them (partial indexes; migration 20261126143000_partial_delivery_indexes),
    // so a record writes four index entries, not seven. The index of the merchant's page holds every row.
    // (Received is not yet recorded: the last groups commit a few milliseconds after their answers.)
    await waitFor(
      async () =>
        Number((await db.query<{ n: bigint }>(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status <> 'delivered'`))[0]?.n) === 0,
      'every delivery recorded as delivered',
    );
    // The claim's statements and the records are prepared on their sessions and planned once, not
    // for the values of each execution: planning the pick for every claim cost about 1.3 ms of a
    // claim's 5 at 500 events/s, a record about 0.6 ms a group (plan_cache_mode in src/sql.ts).
    const plans = `SELECT COALESCE(SUM(custom_plans), 0) AS custom, COALESCE(SUM(generic_plans), 0) AS generic
      FROM pg_prepared_statements WHERE statement LIKE 'WITH %' OR statement LIKE 'PREPARE % AS WITH %'`;
    const claimPlans = await senderSql!.exclusive((q) => q<{ custom: bigint; generic: bigint }>(plans));
    const recordPlans = await senderSql!.records<{ custom: bigint; generic: bigint }>(plans);
    for (const [what, [row]] of [
      ['claims', claimPlans],
      ['records', recordPlans],
    ] as const) {
      expect(Number(row?.custom), `custom plans of the ${what}`).toBe(0);
      expect(Number(row?.generic), `generic plans of the ${what}`).toBeGreaterThan(10);
    }
    await sender.stop(); // no claim's snapshot keeps the old row versions from the VACUUM

    // A claim's write of a delivery (its lease) touches no index: the row's new version is written
    // beside the old one with no index entry (a HOT update), because no index names a lease column
    // and the table keeps room on its pages (migration 20261127234500_lease_counts). Each delivery
    // is claimed once and recorded once (a record changes status: indexed, never HOT); nearly every
    // claim is HOT (not one whose page lost its room to another row's new version first: 1,999 of
    // 2,000 in one run; 1,712 in `.ci/run`'s PostgreSQL phase beside the cluster suite at a load
    // average of about 10, where claims overlap more of the records whose old row versions keep a
    // page's room until pruned: hence 80%). With a lease column indexed, none was. The live claims
    // were counted in webhook_lease_counts meanwhile, and nothing is counted in flight once every
    // attempt is recorded.
    const hotAfter = await waitForStats(db, hotBefore, BACKLOG * 2);
    expect(hotAfter.hot - hotBefore.hot, `HOT updates of ${hotAfter.updates - hotBefore.updates}`).toBeGreaterThanOrEqual(BACKLOG * 0.8);
    expect(
      await db.query(
        `SELECT host FROM webhook_lease_counts WHERE lease_until > now() GROUP BY owner, subscription_id, host HAVING SUM(n) <> 0`,
      ),
    ).toEqual([]);
    await db.query('VACUUM (INDEX_CLEANUP ON) webhook_deliveries');
    const entries = await db.query<{ name: string; n: number }>(
      `SELECT relname AS name, reltuples::int AS n FROM pg_class WHERE relname LIKE 'webhook_deliveries%idx' ORDER BY relname`,
    );
    // (No index of lease_until here: the live claims are counted in webhook_lease_counts.)
    expect(Object.fromEntries(entries.map((e) => [e.name, Number(e.n)]))).toEqual({
      webhook_deliveries_status_next_attempt_at_idx: 0,
      webhook_deliveries_status_subscription_id_next_attempt_at_i_idx: 0,
      webhook_deliveries_store_id_app_id_id_idx: BACKLOG,
      webhook_deliveries_store_id_status_id_idx: BACKLOG,
    });
  });
  it('reads each subscription its own part of the claim index, not the parts of the subscriptions before it; so does the idle poll', async () => {
    const { db } = database;
    const r = track(await receiver());
    const f = await storeAndApp(db);
    // Several subscriptions with a backlog each, all due. The claim index is partial (pending rows
    // only) and was keyed (status, subscription_id, ...): PostgreSQL drops `status = 'pending'`
    // from an index scan's conditions when the index's predicate implies it, and a B-tree scan with
    // no condition on its first column cannot start at a subscription, so each subscription's seek,
    // count and pick read the index from its first page: on every claim, the walk over n
    // subscriptions read about n/2 times the whole index (1 ms a subscription at 20,000 rows).
    await db.query('TRUNCATE webhook_attempts, webhook_deliveries');
    const subs = [];
    for (let i = 0; i < SUBSCRIPTIONS; i++) subs.push(await subscription(db, f, `${r.url}/s${i}`));
    const due = new Date((await clockNow(db)).getTime() - 60_000);
    for (const s of subs) await deliveries(db, f, s, PER_SUBSCRIPTION, { nextAttemptAt: due });
    await db.query('VACUUM ANALYZE webhook_deliveries');
    const pages = async (index: string) =>
      Number((await db.query<{ n: bigint }>(`SELECT pg_relation_size(?::regclass) / 8192 AS n`, [index]))[0]?.n);
    const claimIndexPages = await pages(CLAIM_INDEX);
    // Read from its first page, each subscription's part costs half the index on average.
    expect((claimIndexPages * SUBSCRIPTIONS) / 2).toBeGreaterThan(2 * SUBSCRIPTIONS * BLOCKS_PER_SUBSCRIPTION);

    const blocks: number[] = [];
    const sender = await track(
      inProcessSender(db, { PLATFORM_SENDER_CONCURRENCY: String(IN_HAND), PLATFORM_SENDER_PER_HOST: String(IN_HAND) }, undefined, (sql) =>
        countingIndexBlocks(sql, CLAIM_INDEX, blocks),
      ),
    );
    await waitFor(() => blocks.length >= CLAIMS, `${CLAIMS} claims`);
    await sender.close();
    expect(r.received.length).toBeGreaterThan(0);
    // Each claim walks every subscription (a seek for its id, its due count and oldest due row) and
    // picks from those it plans: a few pages of the index each, on a B-tree two or three levels deep.
    expect(
      median(blocks),
      `claim index pages read by ${blocks.length} claims: from ${Math.min(...blocks)} to ${Math.max(...blocks)} (the index has ${claimIndexPages})`,
    ).toBeLessThan(SUBSCRIPTIONS * BLOCKS_PER_SUBSCRIPTION);

    // The idle poll's "when is the next delivery due" with a backlog due now: it starts after the
    // due rows (a condition on next_attempt_at), and read all of them while the index led with status.
    await deliveries(db, f, subs[0]!, 1, { nextAttemptAt: new Date(due.getTime() - 1000) });
    await db.query(`UPDATE webhook_deliveries SET status = 'pending', attempts = 0`);
    await db.query('VACUUM ANALYZE webhook_deliveries');
    const sql = createSql(db);
    try {
      const read = await sql.exclusive(async (q) => {
        const before = await xactBlocks(q, DUE_INDEX);
        const next = await nextDueAt({ ...sql, own: q }, due);
        expect(next).toBeUndefined(); // nothing is due after `due`: every row is due at or before it
        return (await xactBlocks(q, DUE_INDEX)) - before;
      });
      // A descent from the root to the leaf after the due rows (the index has about 20 pages of them).
      expect(read, `pages read of the due index (it has ${await pages(DUE_INDEX)})`).toBeLessThanOrEqual(4);
    } finally {
      await sql.close();
    }
  });
});

const SUBSCRIPTIONS = 8;
const PER_SUBSCRIPTION = 2_000;
const CLAIMS = 40;
/** pages of the claim index read per subscription a claim walks: a handful (the seek, the count, the pick) */
const BLOCKS_PER_SUBSCRIPTION = 16;
const CLAIM_INDEX = 'webhook_deliveries_status_subscription_id_next_attempt_at_i_idx';
const DUE_INDEX = 'webhook_deliveries_status_next_attempt_at_idx';

/** Blocks of one relation (an index) this transaction read so far (its session's counters, as READ). */
async function xactBlocks(q: Query, relation: string): Promise<number> {
  return Number((await q<{ n: bigint }>(`SELECT pg_stat_get_xact_blocks_fetched(?::regclass) AS n`, [relation]))[0]?.n ?? 0);
}

/** `sql` whose exclusive transactions (the claims) each report the blocks of `index` they read. */
function countingIndexBlocks(sql: Sql, index: string, blocks: number[]): Sql {
  return {
    ...sql,
    exclusive: (fn) =>
      sql.exclusive(async (q) => {
        const start = await xactBlocks(q, index);
        const out = await fn(q, q); // the last statement too: the blocks are read before the COMMIT
        blocks.push((await xactBlocks(q, index)) - start);
        return out;
      }),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Row updates of webhook_deliveries so far, and how many of them were HOT (PostgreSQL's cumulative counters). */
async function rowUpdates(db: { query: <T>(sql: string, params?: unknown[]) => Promise<T[]> }): Promise<{ updates: number; hot: number }> {
  await db.query('SELECT pg_stat_clear_snapshot()');
  const [row] = await db.query<{ updates: bigint; hot: bigint }>(
    `SELECT n_tup_upd AS updates, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = 'webhook_deliveries'`,
  );
  return { updates: Number(row?.updates ?? 0), hot: Number(row?.hot ?? 0) };
}

/** The counters once the sender's sessions (closed) have reported at least `updates` more row updates than `before`. */
async function waitForStats(
  db: { query: <T>(sql: string, params?: unknown[]) => Promise<T[]> },
  before: { updates: number },
  updates: number,
): Promise<{ updates: number; hot: number }> {
  let now = await rowUpdates(db);
  await waitFor(async () => (now = await rowUpdates(db)).updates - before.updates >= updates, `${updates} row updates reported`);
  return now;
}

describe.runIf(process.env.TEST_DATABASE_URL)('a claim on PostgreSQL, the table never analysed', () => {
  const fresh = fileDatabase(async (db) => {
    await setClock(db, new Date('2026-11-22T04:05:01.000Z'));
  });

  it('reads about the rows it takes, and a record about the rows it writes, when a backlog comes before the first ANALYZE of a new deployment', async () => {
    const { db } = fresh;
    const r = track(await receiver());
    const f = await storeAndApp(db);
    // A new deployment: the sender starts on an empty table, claims and records its first event
    // (its statements are prepared then, their plans generic and kept until statistics arrive),
    // and a backlog comes before autovacuum's first ANALYZE (it waits for its next round, about a
    // minute). With no statistics the planner took the table for a few pages and chose a
    // sequential scan inside the update's loop: every claim and every group record read the whole
    // table to write a few rows.
    await db.query('ALTER TABLE webhook_deliveries SET (autovacuum_enabled = false)');
    const sub = await subscription(db, f, `${r.url}/new`);
    const reads: number[] = [];
    const byStatement = new Map<string, number>();
    const recordReads: number[] = [];
    await track(
      inProcessSender(db, { PLATFORM_SENDER_CONCURRENCY: String(IN_HAND) }, undefined, (sql) =>
        countingRecordReads(countingReads(sql, reads, byStatement), recordReads),
      ),
    );
    const first = await deliveries(db, f, sub, 1);
    await wakeSenders(db);
    await waitFor(() => r.received.length >= 1, 'the first event received');
    await waitFor(
      async () => Number((await db.query<{ n: bigint }>(`SELECT COUNT(*) AS n FROM webhook_attempts`))[0]?.n) >= 1,
      'the first event recorded',
    );
    const ids = first.concat(await deliveries(db, f, sub, BACKLOG, { nextAttemptAt: new Date((await clockNow(db)).getTime() - 60_000) }));
    const [never] = await db.query<{ analysed: boolean }>(
      `SELECT last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL AS analysed FROM pg_stat_user_tables WHERE relname = 'webhook_deliveries'`,
    );
    expect(never?.analysed).toBe(false);
    reads.length = 0;
    recordReads.length = 0;
    await wakeSenders(db);
    await waitFor(() => r.received.length >= ids.length, 'every delivery of the backlog received');
    expect(new Set(r.received.map((x) => x.webhookId))).toEqual(new Set(ids));
    expectFewRows(reads, byStatement);
    expect(recordReads.length).toBeGreaterThan(10);
    expect(Math.max(...recordReads), `rows read by each group record: ${recordReads.join(' ')}`).toBeLessThan(BACKLOG / 4);
  });
});
