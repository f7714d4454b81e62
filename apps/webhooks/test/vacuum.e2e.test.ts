/*
 * PostgreSQL: the sender keeps its own queue readable. Each delivery it sends leaves dead entries
 * in the queue's partial indexes, at the head of the subscription's range where every claim starts
 * reading, until a VACUUM removes them; autovacuum comes at most once a minute. So the sender runs
 * one itself after every PLATFORM_SENDER_VACUUM_EVERY recorded deliveries (src/vacuum.ts), and its
 * statements never pay for JIT compilation (30-50 ms a claim, when the planner's estimate passed
 * jit_above_cost).
 */
import { describe, expect, it } from 'vitest';
import { createSql } from '../src/sql';
import {
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

const database = fileDatabase(async (db) => {
  await setClock(db, new Date('2026-11-22T04:05:01.000Z'));
  // Only the sender's VACUUMs count here.
  await db.query('ALTER TABLE webhook_deliveries SET (autovacuum_enabled = false)');
  await db.query('ALTER TABLE webhook_lease_counts SET (autovacuum_enabled = false)');
});
const track = closedAfterEach();

const vacuums = async (table = 'webhook_deliveries') =>
  Number(
    (await database.db.query<{ n: bigint }>(`SELECT vacuum_count AS n FROM pg_stat_user_tables WHERE relname = ?`, [table]))[0]?.n ?? 0,
  );
const recorded = async () =>
  Number((await database.db.query<{ n: bigint }>(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'delivered'`))[0]?.n ?? 0);

describe.runIf(process.env.TEST_DATABASE_URL)('the sender on PostgreSQL', () => {
  it('vacuums webhook_deliveries and the ledger of live claims after every PLATFORM_SENDER_VACUUM_EVERY recorded deliveries, and never with 0', async () => {
    const { db } = database;
    const r = track(await receiver());
    const f = await storeAndApp(db);
    const sub = await subscription(db, f, `${r.url}/hook`);

    const before = await vacuums();
    const ledgerBefore = await vacuums('webhook_lease_counts');
    const off = await track(inProcessSender(db, { PLATFORM_SENDER_VACUUM_EVERY: '0' }));
    await deliveries(db, f, sub, 300);
    await waitFor(async () => (await recorded()) === 300, 'the first 300 recorded');
    await off.close();
    expect(await vacuums()).toBe(before);
    expect(await vacuums('webhook_lease_counts')).toBe(ledgerBefore);

    await track(inProcessSender(db, { PLATFORM_SENDER_VACUUM_EVERY: '100' }));
    await deliveries(db, f, sub, 300);
    await waitFor(async () => (await recorded()) === 600, 'the next 300 recorded');
    await waitFor(async () => (await vacuums()) > before, 'a VACUUM by the sender');
    // The ledger of live claims (PostgreSQL's in-flight counts) with it: each claim leaves what it folded dead.
    expect(await vacuums('webhook_lease_counts')).toBeGreaterThan(ledgerBefore);
    const dead = async () =>
      Number(
        (await db.query<{ dead: bigint }>(`SELECT n_dead_tup AS dead FROM pg_stat_user_tables WHERE relname = 'webhook_deliveries'`))[0]
          ?.dead,
      );
    // Deliveries recorded while a VACUUM ran are vacuumed as soon as it ends, not when more come:
    // once the sender is done, fewer dead rows than two versions of each of the last 300 are left
    // (none vacuumed since the first 300 would leave well over 1,000). A VACUUM may be under way
    // when the count is read, hence the wait.
    await waitFor(async () => (await dead()) < 600, 'fewer than 600 dead rows', 10_000);
  });

  it('claims, records and reads without JIT compilation', async () => {
    const sql = track(createSql(database.db));
    expect(await sql.exclusive((q) => q('SHOW jit'))).toEqual([{ jit: 'off' }]);
    expect(await sql.records('SHOW jit')).toEqual([{ jit: 'off' }]);
    expect(await sql.own('SHOW jit')).toEqual([{ jit: 'off' }]);
  });
});
