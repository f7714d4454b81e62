/*
 * PostgreSQL: the count of live claims (decisions §11.7's caps, across every sender) is kept in
 * webhook_lease_counts by triggers on webhook_deliveries (migration 20261127234500_lease_counts), so
 * that no index names a lease column and a claim rewrites a row without touching an index. A count
 * too low would let senders exceed a cap; so every kind of statement that sets, moves or clears a
 * lease is checked here against the leased rows themselves (what the claims counted before): the
 * sender's own statements, an updateMany through Prisma (the API's writes), a row deleted with its
 * delete, several claims and subscriptions in one statement.
 */
import { describe, expect, it } from 'vitest';
import type { Db } from '@platform/db';
import { FOLD_COUNTS } from '../src/walk';
import { deliveries, fileDatabase, storeAndApp, subscription } from './helpers';

const database = fileDatabase();

/**
 * Milliseconds from the database's clock: leases are compared with the database's `now()` (the
 * counts, the claims), so a test's lease ends are taken from it too, not from this process's clock
 * (which scripts/test-at.sh moves a year ahead while PostgreSQL runs on the real one).
 */
async function dbNowMs(db: Db): Promise<number> {
  const [row] = await db.query<{ now: Date }>('SELECT now() AS now');
  return new Date(row!.now).getTime();
}

/** Live counts per claim, subscription and host, summed over the ledger the triggers append to. */
async function counted(db: Db): Promise<Record<string, number>> {
  const rows = await db.query<{ owner: string; subscription_id: bigint; host: string; n: bigint }>(
    `SELECT owner, subscription_id, host, SUM(n) AS n FROM webhook_lease_counts WHERE lease_until > now()
     GROUP BY owner, subscription_id, host HAVING SUM(n) <> 0 ORDER BY owner, subscription_id, host`,
  );
  return Object.fromEntries(rows.map((r) => [`${r.owner}/${r.subscription_id}/${r.host}`, Number(r.n)]));
}

/** The same, counted on the leased rows. */
async function leased(db: Db): Promise<Record<string, number>> {
  const rows = await db.query<{ owner: string; subscription_id: bigint; host: string; n: bigint }>(
    `SELECT lease_owner AS owner, subscription_id, lease_host AS host, COUNT(*) AS n FROM webhook_deliveries
     WHERE lease_host IS NOT NULL AND lease_until > now() GROUP BY lease_owner, subscription_id, lease_host ORDER BY 1, 2, 3`,
  );
  return Object.fromEntries(rows.map((r) => [`${r.owner}/${r.subscription_id}/${r.host}`, Number(r.n)]));
}

describe.runIf(process.env.TEST_DATABASE_URL)('the live-claim counts on PostgreSQL (decisions §11.7)', () => {
  it('follow every statement that sets, moves or clears a lease, and deliveries deleted while leased', async () => {
    const { db } = database;
    const f = await storeAndApp(db);
    const a = await subscription(db, f, 'https://a.example/hook');
    const b = await subscription(db, f, 'https://b.example/hook');
    await deliveries(db, f, a, 6);
    await deliveries(db, f, b, 3);
    const ids = async (sub: { id: bigint }) =>
      (await db.query<{ id: bigint }>(`SELECT id FROM webhook_deliveries WHERE subscription_id = ? ORDER BY id`, [sub.id])).map(
        (r) => r.id,
      );
    const [a1, a2, a3, a4, a5, a6] = await ids(a);
    const [b1, b2, b3] = await ids(b);
    const until = new Date((await dbNowMs(db)) + 60_000);
    const expectInStep = async (expected: Record<string, number>) => {
      expect(await counted(db)).toEqual(expected);
      expect(await leased(db)).toEqual(expected);
    };

    // One claim over two subscriptions: counted (a host) and held (none) in one statement.
    await db.query(
      `UPDATE webhook_deliveries SET lease_owner = 'c1', lease_until = ?, lease_host = CASE WHEN id IN (?, ?, ?) THEN subscription_id::text || '.example' END
       WHERE id IN (?, ?, ?, ?, ?)`,
      [until, a1, a2, b1, a1, a2, a3, a4, b1],
    );
    await expectInStep({ [`c1/${a.id}/${a.id}.example`]: 2, [`c1/${b.id}/${b.id}.example`]: 1 });

    // A second claim, then a record that ends one attempt of c1 and hands its slot to a held
    // delivery of c1 and one of c2 gets a slot too, in one statement.
    await db.query(`UPDATE webhook_deliveries SET lease_owner = 'c2', lease_until = ?, lease_host = NULL WHERE id IN (?, ?)`, [
      until,
      a5,
      b2,
    ]);
    await db.query(
      `UPDATE webhook_deliveries SET status = CASE WHEN id = ? THEN 'delivered' ELSE status END,
         lease_owner = CASE WHEN id = ? THEN NULL ELSE lease_owner END,
         lease_until = CASE WHEN id = ? THEN NULL ELSE lease_until END,
         lease_host = CASE WHEN id = ? THEN NULL ELSE subscription_id::text || '.example' END
       WHERE id IN (?, ?, ?)`,
      [a1, a1, a1, a1, a1, a3, b2],
    );
    await expectInStep({ [`c1/${a.id}/${a.id}.example`]: 2, [`c1/${b.id}/${b.id}.example`]: 1, [`c2/${b.id}/${b.id}.example`]: 1 });

    // The host moved on one row (its subscription's address changed between two attempts).
    await db.query(`UPDATE webhook_deliveries SET lease_host = 'other.example' WHERE id = ?`, [a2]);
    await expectInStep({
      [`c1/${a.id}/${a.id}.example`]: 1,
      [`c1/${a.id}/other.example`]: 1,
      [`c1/${b.id}/${b.id}.example`]: 1,
      [`c2/${b.id}/${b.id}.example`]: 1,
    });

    // A write that leaves the leases alone counts nothing.
    await db.query(`UPDATE webhook_deliveries SET last_error = 'x' WHERE id IN (?, ?, ?)`, [a2, a3, b2]);
    await expectInStep({
      [`c1/${a.id}/${a.id}.example`]: 1,
      [`c1/${a.id}/other.example`]: 1,
      [`c1/${b.id}/${b.id}.example`]: 1,
      [`c2/${b.id}/${b.id}.example`]: 1,
    });

    // Through Prisma, as the API writes (a subscription's pending deliveries failed), and a claim
    // given back.
    await db.prisma.webhookDelivery.updateMany({
      where: { subscriptionId: b.id },
      data: { status: 'failed', leaseOwner: null, leaseUntil: null, leaseHost: null },
    });
    await db.query(`UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL, lease_host = NULL WHERE id = ?`, [a2]);
    await expectInStep({ [`c1/${a.id}/${a.id}.example`]: 1 });

    // A lease extended (only lease_until moves): counted until its new expiry, not its old one.
    await db.query(`UPDATE webhook_deliveries SET lease_owner = 'c5', lease_until = ?, lease_host = 'z.example' WHERE id = ?`, [
      new Date((await dbNowMs(db)) + 1000),
      a6,
    ]);
    await db.query(`UPDATE webhook_deliveries SET lease_until = ? WHERE id = ?`, [until, a6]);
    await new Promise((r) => setTimeout(r, 1500));
    await expectInStep({ [`c1/${a.id}/${a.id}.example`]: 1, [`c5/${a.id}/z.example`]: 1 });
    await db.query(`UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL, lease_host = NULL WHERE id = ?`, [a6]);

    // An expired claim counts nothing; a row inserted with a lease is counted.
    await db.query(`UPDATE webhook_deliveries SET lease_owner = 'c3', lease_until = ?, lease_host = 'x.example' WHERE id = ?`, [
      new Date((await dbNowMs(db)) - 1000),
      a6,
    ]);
    await expectInStep({ [`c1/${a.id}/${a.id}.example`]: 1 });
    await db.query(
      `INSERT INTO webhook_deliveries (store_id, app_id, subscription_id, topic, webhook_id, api_version, body, triggered_at, next_attempt_at, updated_at, lease_owner, lease_until, lease_host)
       SELECT store_id, app_id, subscription_id, topic, gen_random_uuid()::text, api_version, body, triggered_at, next_attempt_at, updated_at, 'c4', ?, 'y.example'
       FROM webhook_deliveries WHERE id = ?`,
      [until, b3],
    );
    await expectInStep({ [`c1/${a.id}/${a.id}.example`]: 1, [`c4/${b.id}/y.example`]: 1 });

    // Rows deleted while leased (a purge): their counts go with them.
    await db.query(`DELETE FROM webhook_deliveries WHERE store_id = ?`, [f.storeId]);
    await expectInStep({});
    // No live count went below zero on the way.
    expect(
      await db.query(
        `SELECT owner FROM webhook_lease_counts WHERE lease_until > now() GROUP BY owner, subscription_id, host HAVING SUM(n) < 0`,
      ),
    ).toEqual([]);
  });

  it("never makes a statement wait for a claim's transaction: a record clears a lease while a claim that folded the ledger is open", async () => {
    const { db } = database;
    const f = await storeAndApp(db);
    const sub = await subscription(db, f, 'https://c.example/hook');
    await deliveries(db, f, sub, 2);
    const [d1, d2] = (
      await db.query<{ id: bigint }>(`SELECT id FROM webhook_deliveries WHERE subscription_id = ? ORDER BY id`, [sub.id])
    ).map((r) => r.id);
    const until = new Date((await dbNowMs(db)) + 60_000);
    await db.query(`UPDATE webhook_deliveries SET lease_owner = 'f1', lease_until = ?, lease_host = 'c.example' WHERE id IN (?, ?)`, [
      until,
      d1,
      d2,
    ]);
    // A record of one attempt ended meanwhile: its -1 is in the ledger beside the claim's +2.
    await db.query(`UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL, lease_host = NULL WHERE id = ?`, [d1]);
    let waited = false;
    await db.prisma.$transaction(async (tx) => {
      // What a claim does to the ledger (walk.ts, FOLD_COUNTS), left open as a claim is until its commit.
      await tx.$queryRawUnsafe(`WITH ${FOLD_COUNTS} SELECT 1`);
      // Another connection records the other attempt: it must finish, not wait for a lock.
      let done = false;
      const record = db
        .query(`UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL, lease_host = NULL WHERE id = ?`, [d2])
        .finally(() => (done = true));
      while (!done) {
        const [row] = await db.query<{ n: bigint }>(
          `SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        if (Number(row?.n) > 0) {
          waited = true;
          break;
        }
      }
      if (waited) void record.catch(() => undefined);
      else await record;
    });
    expect(waited).toBe(false);
    expect(await counted(db)).toEqual({});
  });

  it('are folded by a claim into one row per live group, a folded row left alone, and emptied by a TRUNCATE', async () => {
    const { db } = database;
    const f = await storeAndApp(db);
    const sub = await subscription(db, f, 'https://d.example/hook');
    await deliveries(db, f, sub, 3);
    const [d1, d2, d3] = (
      await db.query<{ id: bigint }>(`SELECT id FROM webhook_deliveries WHERE subscription_id = ? ORDER BY id`, [sub.id])
    ).map((r) => r.id);
    const until = new Date((await dbNowMs(db)) + 60_000);
    await db.query(`UPDATE webhook_deliveries SET lease_owner = 'g1', lease_until = ?, lease_host = 'd.example' WHERE id IN (?, ?, ?)`, [
      until,
      d1,
      d2,
      d3,
    ]);
    await db.query(`UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL, lease_host = NULL WHERE id = ?`, [d1]);
    const ledger = () => db.query<{ id: bigint; n: number }>(`SELECT id, n FROM webhook_lease_counts WHERE owner = 'g1' ORDER BY id`);
    expect((await ledger()).map((r) => Number(r.n))).toEqual([3, -1]);
    const fold = () => db.query(`WITH ${FOLD_COUNTS} SELECT 1`);
    await fold();
    const folded = await ledger();
    expect(folded.map((r) => Number(r.n))).toEqual([2]);
    await fold();
    expect(await ledger()).toEqual(folded); // the same row: nothing appended, nothing rewritten
    await db.query(`UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL, lease_host = NULL WHERE id IN (?, ?)`, [d2, d3]);
    await fold();
    expect(await ledger()).toEqual([]); // summed to zero: gone
    await db.query(`UPDATE webhook_deliveries SET lease_owner = 'g1', lease_until = ?, lease_host = 'd.example' WHERE id = ?`, [until, d1]);
    expect(await counted(db)).toEqual({ [`g1/${sub.id}/d.example`]: 1 });
    await db.query('TRUNCATE webhook_attempts, webhook_deliveries');
    expect(await db.query(`SELECT id FROM webhook_lease_counts`)).toEqual([]);
  });
});
