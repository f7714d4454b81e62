/*
 * PostgreSQL: the lone claim (src/lone.ts), a claim of one statement for a claim with one queue to
 * plan, takes what the planned claim (the walk, planClaims in @platform/domain, the take) takes on
 * the same state: the same deliveries started and held, the same held ones given slots, the same
 * answer about what was left behind. States drawn at random (a seeded generator, so a failure
 * repeats): due deliveries, other senders' attempts at the host and of the app, the sender's own
 * attempts and held deliveries, caps, budgets. And it takes nothing where there is a choice to make.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { claimDue, type ClaimRequest, type ClaimState, type OwnShare } from '../src/claim';
import { claimLone, type LoneQueue } from '../src/lone';
import { createSql, type Sql } from '../src/sql';
import { clockNow, deliveries, fileDatabase, setClock, storeAndApp, subscription, type Fixture } from './helpers';

const database = fileDatabase(async (db) => {
  await setClock(db, new Date('2026-11-22T04:05:01.000Z'));
});
const LEASE_MS = 60_000;
const ME = 'me-sender';

let opened: Sql | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
  // Nothing pending is left for the next case (a due delivery of another subscription makes a claim plan).
  await database.db.query(
    `UPDATE webhook_deliveries SET status = 'failed', lease_owner = NULL, lease_until = NULL, lease_host = NULL WHERE status = 'pending'`,
  );
});

/** A small seeded generator (mulberry32): the same cases on every run. */
function random(seed: number): (n: number) => number {
  let a = seed;
  return (n) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

interface Lease {
  id: bigint;
  lease_owner: string | null;
  lease_until: Date | null;
  lease_host: string | null;
}

async function leases(sql: Sql): Promise<Lease[]> {
  return sql.query<Lease>(`SELECT id, lease_owner, lease_until, lease_host FROM webhook_deliveries WHERE status = 'pending' ORDER BY id`);
}

async function restore(sql: Sql, before: Lease[]): Promise<void> {
  for (const l of before)
    await sql.query(`UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?, lease_host = ? WHERE id = ?`, [
      l.lease_owner,
      l.lease_until,
      l.lease_host,
      l.id,
    ]);
}

/** Leases `count` deliveries of `sub` (oldest first among the free ones) to `owner`, counted at `host` or held (null). */
async function lease(sql: Sql, sub: bigint, owner: string, host: string | null, count: number, until: Date): Promise<bigint[]> {
  const rows = await sql.query<{ id: bigint }>(
    `UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?, lease_host = ? WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE status = 'pending' AND subscription_id = ? AND lease_owner IS NULL ORDER BY id LIMIT ?)
     RETURNING id`,
    [owner, until, host, sub, count],
  );
  return rows.map((r) => BigInt(r.id)).sort((a, b) => (a < b ? -1 : 1));
}

interface Case {
  hint: LoneQueue;
  req: ClaimRequest;
  f: Fixture;
}

/** One random state: the subscription the sender worked on, a neighbour of another app at the same host, leases of both. */
async function randomCase(sql: Sql, pick: (n: number) => number, i: number): Promise<Case> {
  const db = database.db;
  const host = `h${i}.example`;
  const f = await storeAndApp(db);
  const sub = await subscription(db, f, `https://${host}:8443/hooks`);
  const neighbourApp = await storeAndApp(db);
  const neighbour = await subscription(db, neighbourApp, `https://${host}/other`);
  const now = await clockNow(db);
  const realNow = new Date();
  const until = new Date(realNow.getTime() + LEASE_MS);
  // Rows that will be leased first (lowest ids), then the free due ones, then some not due yet.
  const caps = { perHost: 1 + pick(8), perApp: 1 + pick(10) };
  const budget = 1 + pick(10);
  const holdBudget = pick(3) === 0 ? 0 : pick(24);
  const running = pick(4);
  const held = pick(5);
  const otherOfApp = pick(3);
  // Now and then more than the claim counts (budget and hold budget): a lone claim then plans.
  const free = pick(Math.min(16, budget + holdBudget + 2));
  await deliveries(db, f, sub, running + held + otherOfApp, { nextAttemptAt: new Date(now.getTime() - 5000) });
  await deliveries(db, f, sub, free);
  await deliveries(db, f, sub, pick(3), { nextAttemptAt: new Date(now.getTime() + 60_000) });
  const atHost = pick(4);
  await deliveries(db, neighbourApp, neighbour, atHost);
  await lease(sql, sub.id, `${ME}:0`, host, running, until);
  const heldIds = await lease(sql, sub.id, `${ME}:0`, null, held, until);
  await lease(sql, sub.id, 'other-sender:1', host, otherOfApp, until);
  await lease(sql, neighbour.id, 'other-sender:1', host, atHost, until);
  const perSlot = [0, 1, 2, 64][pick(4)]!;
  const own: OwnShare = {
    running,
    held: heldIds.map((id) => ({ id, owner: `${ME}:0` })),
    appId: f.appId,
    host,
    oldestDue: new Date(now.getTime() - 5000),
    ...(pick(3) === 0 ? { holdPerSlot: 1 + pick(4) } : {}),
  };
  const req: ClaimRequest = {
    now,
    realNow,
    leaseMs: LEASE_MS,
    owner: `${ME}:1`,
    caps,
    budget,
    own: new Map(running + held > 0 ? [[sub.id, own]] : []),
    holdPerSlot: perSlot,
    holdBudget,
  };
  return { hint: { subscriptionId: sub.id, appId: f.appId, storeId: f.storeId, address: sub.address, host }, req, f };
}

/** What a claim did, by lease: started (a host), held (none), and held ones given slots. */
async function outcome(sql: Sql, claim: Awaited<ReturnType<typeof claimDue>>, owner: string) {
  const mine = (await leases(sql)).filter((l) => l.lease_owner === owner);
  return {
    started: mine.filter((l) => l.lease_host !== null).map((l) => l.id),
    held: mine.filter((l) => l.lease_host === null).map((l) => l.id),
    promoted: [...claim.promoted].sort((a, b) => (a < b ? -1 : 1)),
    leftBehind: claim.leftBehind,
    more: claim.more,
  };
}

describe.runIf(process.env.TEST_DATABASE_URL)('the lone claim on PostgreSQL', () => {
  it('takes what the planned claim takes, on 60 random states of one queue', async () => {
    const sql = (opened = createSql(database.db));
    const pick = random(20261203);
    let alone = 0;
    for (let i = 0; i < 60; i++) {
      const { hint, req } = await randomCase(sql, pick, i);
      const before = await leases(sql);
      // Every other claim folds the ledger of live claims as it goes (as every 16th of a sender's does).
      const state: ClaimState = { after: 0n, lone: hint, sinceFold: i % 2 === 0 ? 0 : 16 };
      const lone = await claimDue(sql, req, state);
      expect(lone.differs, `case ${i}`).toBeUndefined();
      const viaLone = await outcome(sql, lone, req.owner);
      await restore(sql, before);
      const planned = await claimDue(sql, req, { after: 0n });
      const viaPlan = await outcome(sql, planned, req.owner);
      const shown = JSON.stringify({ caps: req.caps, budget: req.budget, holdBudget: req.holdBudget });
      expect(viaLone, `case ${i}: ${shown}`).toEqual(viaPlan);
      // A lone claim that finds a choice to make (here: more due than the claim counts) leaves a
      // pause before the next try, and the claim was planned.
      if (state.planFirst === undefined && viaLone.started.length + viaLone.held.length + viaLone.promoted.length > 0) alone++;
      await database.db.query(
        `UPDATE webhook_deliveries SET status = 'failed', lease_owner = NULL, lease_until = NULL, lease_host = NULL WHERE status = 'pending'`,
      );
    }
    // Most states were claimed alone, with something to take (the comparison is not of empty claims).
    expect(alone).toBeGreaterThan(30);
  });

  it('takes nothing when another subscription has a delivery due, the subscription was disabled or moved, or a backlog is due', async () => {
    const sql = (opened = createSql(database.db));
    const db = database.db;
    const f = await storeAndApp(db);
    const sub = await subscription(db, f, 'https://lone.example/hooks');
    const other = await subscription(db, f, 'https://elsewhere.example/hooks');
    const now = await clockNow(db);
    const realNow = new Date();
    const hint: LoneQueue = { subscriptionId: sub.id, appId: f.appId, storeId: f.storeId, address: sub.address, host: 'lone.example' };
    const loneReq = {
      now,
      realNow,
      implausible: new Date(realNow.getTime() + 2 * LEASE_MS),
      owner: `${ME}:2`,
      leaseUntil: new Date(realNow.getTime() + LEASE_MS),
      caps: { perHost: 4, perApp: 10 },
      budget: 8,
      holdBudget: 16,
      holdPerSlot: 2,
      countCap: 12,
      own: { running: 0, held: [] },
      fold: true,
    };
    const tryAlone = () => sql.exclusive((_q, last) => claimLone(last, hint, loneReq));
    const taken = async () => (await leases(sql)).filter((l) => l.lease_owner !== null).length;

    // Nothing due: nothing taken, and when the next delivery falls due.
    const later = new Date(now.getTime() + 30_000);
    await deliveries(db, f, sub, 1, { nextAttemptAt: later });
    const idle = await tryAlone();
    expect(idle?.rows).toEqual([]);
    expect(idle?.nextDue?.getTime()).toBe(later.getTime());

    await deliveries(db, f, sub, 3);
    await deliveries(db, f, other, 1);
    expect(await tryAlone()).toBeUndefined();
    expect(await taken()).toBe(0);
    await db.query(`UPDATE webhook_deliveries SET status = 'failed' WHERE subscription_id = ?`, [other.id]);

    await db.query(`UPDATE webhook_subscriptions SET status = 'disabled' WHERE id = ?`, [sub.id]);
    expect(await tryAlone()).toBeUndefined();
    await db.query(`UPDATE webhook_subscriptions SET status = 'enabled', address = ? WHERE id = ?`, [
      'https://moved.example/hooks',
      sub.id,
    ]);
    expect(await tryAlone()).toBeUndefined();
    await db.query(`UPDATE webhook_subscriptions SET address = ? WHERE id = ?`, [sub.address, sub.id]);
    expect(await taken()).toBe(0);

    // More due than a claim counts: a backlog, planned as always.
    await deliveries(db, f, sub, 10);
    expect(await tryAlone()).toBeUndefined();
    expect(await taken()).toBe(0);

    // Back to a few due: alone again, the oldest started up to the host's slots, the rest held.
    await db.query(
      `UPDATE webhook_deliveries SET status = 'failed' WHERE id IN (SELECT id FROM webhook_deliveries WHERE subscription_id = ? AND status = 'pending' AND next_attempt_at <= ? ORDER BY id DESC LIMIT 7)`,
      [sub.id, now],
    );
    const few = await tryAlone();
    expect(few?.rows.map((d) => d.leaseHost)).toEqual(['lone.example', 'lone.example', 'lone.example', 'lone.example', null, null]);
    expect(few?.rows.every((d) => d.appSecret === f.secret && d.handle === f.handle)).toBe(true);
  });
});
