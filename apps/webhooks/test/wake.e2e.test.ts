import { existsSync, rmSync } from 'node:fs';
import { wakeFileOf } from '@platform/db';
import { Client } from 'pg';
import { describe, expect, it } from 'vitest';
import {
  deliveries,
  closedAfterEach,
  fileDatabase,
  inProcessSender,
  outboxEvent,
  receiver,
  sleep,
  storeAndApp,
  subscription,
  waitFor,
} from './helpers';
import type { Query, Sql } from '../src/sql';

// Issue 17, "Events in milliseconds": the sender wakes when deliveries are committed (PostgreSQL
// NOTIFY/LISTEN; SQLite the wake file), with a slow poll kept as the safety net. Real receivers, a
// real database (SQLite here, PostgreSQL under test:pg).

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const database = fileDatabase();
const track = closedAfterEach();

const body = (n: number) => JSON.stringify({ inventory_item: { id: String(n) } });
/** A poll so far away that only a wake can explain a delivery within the test's time. */
const NO_POLL = { PLATFORM_SENDER_POLL_MS: '600000' };

/**
 * A sender on the system clock with no poll, whose claims are counted by their first statement (one
 * a claim): the walk over the subscriptions with pending deliveries, or on PostgreSQL the lone claim
 * (src/lone.ts) that needs no walk.
 */
async function claimCountingSender() {
  let walks = 0;
  const count =
    (run: Query): Query =>
    (text, params) => {
      if (text.includes('WITH RECURSIVE subs') || text.includes('lone AS MATERIALIZED')) walks++;
      return run(text, params);
    };
  const counting = (sql: Sql): Sql => ({ ...sql, exclusive: (fn) => sql.exclusive((q, last) => fn(count(q), count(last))) });
  const sender = track(inProcessSender(database.db, { ...NO_POLL, PLATFORM_CLOCK: 'system' }, {}, counting));
  await sender.ready;
  return { sender, claims: () => walks };
}

describe('waking on commit', () => {
  it('delivers a committed event at once to a sender whose poll is 10 minutes away', async () => {
    const r = track(await receiver());
    const f = await storeAndApp(database.db);
    await subscription(database.db, f, r.url);
    const sender = track(inProcessSender(database.db, NO_POLL));
    await sender.ready;
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const committed = await outboxEvent(database.db, f, body(i));
      await waitFor(() => r.received.length === i + 1, 'the event', 30_000, 2);
      latencies.push(r.received[i]!.at - committed);
    }
    console.log(`commit to receipt, woken: ${latencies.join(', ')} ms`);
    expect(r.received.map((x) => x.body.toString())).toEqual([0, 1, 2, 3, 4].map(body));
  });

  it('sleeps until a pending delivery falls due, not until its poll 10 minutes away', async () => {
    const r = track(await receiver());
    const f = await storeAndApp(database.db);
    const sub = await subscription(database.db, f, r.url);
    const sender = track(inProcessSender(database.db, { ...NO_POLL, PLATFORM_CLOCK: 'system' }));
    await sender.ready;
    const dueAt = Date.now() + 1500;
    const [later] = await deliveries(database.db, f, sub, 1, { nextAttemptAt: new Date(dueAt) });
    // A committed event wakes the sender: it sends that one, and asks when the other falls due.
    await outboxEvent(database.db, f, body(0));
    await waitFor(() => r.received.some((x) => x.webhookId === later), 'the delivery that fell due', 30_000);
    expect(r.received).toHaveLength(2);
    expect(r.received.find((x) => x.webhookId === later)!.at).toBeGreaterThanOrEqual(dueAt);
  });

  it('claims once for an event committed on its own, not again when its attempt ends with nothing waiting', async () => {
    const r = track(await receiver());
    const f = await storeAndApp(database.db);
    await subscription(database.db, f, r.url);
    const { sender, claims } = await claimCountingSender();
    await sleep(100);
    const before = claims();
    const EVENTS = 10;
    for (let i = 0; i < EVENTS; i++) {
      await outboxEvent(database.db, f, body(i));
      await waitFor(() => r.received.length === i + 1, 'the event', 30_000, 2);
      await waitFor(() => sender.inFlight() === 0, 'the attempt recorded', 30_000, 2);
      await sleep(30); // a claim after the attempt's record would run now
    }
    // One claim an event (a wake arriving during a claim may add one); a claim after every attempt
    // would make it twice as many.
    expect(claims() - before).toBeGreaterThanOrEqual(EVENTS);
    expect(claims() - before).toBeLessThanOrEqual(EVENTS + 3);
  });

  it('stops claiming once a backlog is all claimed: the held deliveries running down do not each ask a claim that finds nothing', async () => {
    const r = track(await receiver());
    const f = await storeAndApp(database.db);
    const sub = await subscription(database.db, f, r.url);
    const { sender, claims } = await claimCountingSender();
    const BACKLOG = 1500;
    await deliveries(database.db, f, sub, BACKLOG);
    await outboxEvent(database.db, f, body(0));
    await waitFor(() => r.received.length === BACKLOG + 1, 'the backlog', 60_000);
    await waitFor(() => sender.inFlight() === 0, 'the last attempt recorded', 30_000);
    await sleep(100);
    // A claim takes up to 1,024 held (about 500 at a time once they run half down): a few claims
    // take the backlog (9-10 seen in all), then one finds nothing and the sender waits for a wake.
    // Before, every attempt that found its subscription's held ones low asked a claim: with hundreds
    // held at the end, 88 claims in all.
    console.log(`backlog of ${BACKLOG + 1}: ${claims()} claims`);
    expect(claims()).toBeLessThanOrEqual(20);
  });

  it('claims again when an attempt frees the slot that due deliveries wait for, with no poll to find them', async () => {
    const r = track(await receiver((_q, res) => setTimeout(() => res.writeHead(200).end('ok'), 40)));
    const f = await storeAndApp(database.db);
    // Two subscriptions at one host with one slot: each event's second delivery waits for the first's slot.
    await subscription(database.db, f, r.url);
    await subscription(database.db, f, `${r.url}/other`);
    const sender = track(inProcessSender(database.db, { ...NO_POLL, PLATFORM_CLOCK: 'system', PLATFORM_SENDER_PER_HOST: '1' }));
    await sender.ready;
    for (let i = 0; i < 3; i++) await outboxEvent(database.db, f, body(i));
    await waitFor(() => r.received.length === 6, 'every delivery, one slot at a time', 30_000);
    expect(new Set(r.received.map((x) => x.path))).toEqual(new Set(['/', '/other']));
  });

  it('delivers through the poll when the wake is lost', async () => {
    const r = track(await receiver());
    const f = await storeAndApp(database.db);
    const sub = await subscription(database.db, f, r.url);
    // The default poll (1 s); rows committed with no wake at all (a writer that does not signal,
    // or a NOTIFY sent while the listener was reconnecting).
    const sender = track(inProcessSender(database.db, { PLATFORM_SENDER_POLL_MS: '1000' }));
    await sender.ready;
    const ids = await deliveries(database.db, f, sub, 3);
    await waitFor(() => r.received.length === 3, 'the poll', 30_000);
    expect(new Set(r.received.map((x) => x.webhookId))).toEqual(new Set(ids));
  });

  it.runIf(onPostgres)('listens again after its PostgreSQL connection is cut', async () => {
    const r = track(await receiver());
    const f = await storeAndApp(database.db);
    await subscription(database.db, f, r.url);
    const sender = track(inProcessSender(database.db, NO_POLL));
    await sender.ready;
    const admin = new Client({ connectionString: database.url });
    await admin.connect();
    const listeners = async () =>
      (
        await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'")
      ).rows.map((x) => x.pid);
    const [before] = await listeners();
    expect(before).toBeDefined();
    await admin.query('SELECT pg_terminate_backend($1)', [before]);
    await waitFor(async () => (await listeners()).some((pid) => pid !== before), 'a new listener');
    await admin.end();
    await outboxEvent(database.db, f, body(1));
    await waitFor(() => r.received.length === 1, 'the event', 30_000);
  });

  it.skipIf(onPostgres)('watches the wake file again after it is removed', async () => {
    const r = track(await receiver());
    const f = await storeAndApp(database.db);
    await subscription(database.db, f, r.url);
    const sender = track(inProcessSender(database.db, NO_POLL));
    await sender.ready;
    const file = wakeFileOf(database.url);
    rmSync(file);
    await waitFor(() => existsSync(file), 'the wake file made again');
    await outboxEvent(database.db, f, body(1));
    await waitFor(() => r.received.length === 1, 'the event', 30_000);
  });
});
