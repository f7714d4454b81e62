import { describe, expect, it } from 'vitest';
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
import { recordAttempt, type RecordInput } from '../src/record';
import { createSql } from '../src/sql';

const database = fileDatabase(async (db) => {
  await setClock(db, new Date('2026-11-22T04:05:01.000Z'));
});
const track = closedAfterEach();

describe('recording attempts that end together (group commit, decisions §11.6)', () => {
  it('gives each attempt of a group its own row, state and streak reset, delivered and retried alike', async () => {
    const { db } = database;
    // The receiver answers four requests at once (the sender keeps 4 open at a host), so their
    // attempts end in the same few milliseconds and are recorded in one group.
    const failing = new Set<string>();
    const held: (() => void)[] = [];
    let together = 0;
    const answerAll = () => {
      if (held.length >= 4) together++;
      for (const answer of held.splice(0)) answer();
    };
    const r = track(
      await receiver((req, res) => {
        const id = String(req.headers['x-platform-webhook-id']);
        const fail = failing.has(id);
        held.push(() => res.writeHead(fail ? 500 : 200).end(fail ? `no ${id}` : `ok ${id}`));
        if (held.length >= 4) answerAll();
      }),
    );
    const stragglers = setInterval(answerAll, 100);
    try {
      const f = await storeAndApp(db);
      const a = await subscription(db, f, `${r.url}/a`);
      const b = await subscription(db, f, `${r.url}/b`);
      await db.prisma.webhookSubscription.update({ where: { id: a.id }, data: { failureStreak: 3 } });
      const aIds = await deliveries(db, f, a, 20);
      const bIds = await deliveries(db, f, b, 20);
      for (const id of bIds.slice(0, 6)) failing.add(id);
      const now = await clockNow(db);
      await track(inProcessSender(db));
      const all = [...aIds, ...bIds];
      await waitFor(async () => (await db.prisma.webhookAttempt.count()) === all.length, 'an attempt row for each delivery');
      expect(together).toBeGreaterThan(0);
      const rows = await db.prisma.webhookDelivery.findMany({ where: { webhookId: { in: all } } });
      expect(rows).toHaveLength(all.length);
      const attempts = await db.prisma.webhookAttempt.findMany({ where: { deliveryId: { in: rows.map((d) => d.id) } } });
      for (const d of rows) {
        expect(d).toMatchObject({ attempts: 1, leaseOwner: null, leaseUntil: null, leaseHost: null });
        const mine = attempts.filter((x) => x.deliveryId === d.id);
        expect(mine).toHaveLength(1);
        const attempt = mine[0]!;
        if (failing.has(d.webhookId)) {
          expect(d).toMatchObject({ status: 'pending', lastError: 'HTTP 500', deliveredAt: null });
          expect(d.nextAttemptAt.getTime() - now.getTime()).toBeGreaterThanOrEqual(8000);
          expect(attempt).toMatchObject({ number: 1, responseStatus: 500, error: 'HTTP 500', responseBody: `no ${d.webhookId}` });
        } else {
          expect(d).toMatchObject({ status: 'delivered', lastError: null });
          expect(d.deliveredAt?.toISOString()).toBe(now.toISOString());
          expect(attempt).toMatchObject({ number: 1, responseStatus: 200, error: null, responseBody: `ok ${d.webhookId}` });
        }
        expect(attempt.startedAt.toISOString()).toBe(now.toISOString());
      }
      // A's delivered attempts reset its failure streak (B's retries do not count as failures yet).
      const subs = await db.prisma.webhookSubscription.findMany({ where: { id: { in: [a.id, b.id] } }, orderBy: { id: 'asc' } });
      expect(subs.map((s) => [s.failureStreak, s.status])).toEqual([
        [0, 'enabled'],
        [0, 'enabled'],
      ]);
    } finally {
      clearInterval(stragglers);
    }
  });

  it('writes each row of a group as if alone: a lost claim writes nothing, the others and their slot transfers are written', async () => {
    const { db } = database;
    const f = await storeAndApp(db);
    const sub = await subscription(db, f, 'https://example.com/hook');
    const webhookIds = await deliveries(db, f, sub, 71);
    const rows = await db.prisma.webhookDelivery.findMany({ where: { webhookId: { in: webhookIds } }, orderBy: { id: 'asc' } });
    const leaseUntil = new Date(Date.now() + 60_000);
    // Every delivery claimed by its own owner; the last one's claim was taken over by another sender.
    for (const [i, d] of rows.entries())
      await db.prisma.webhookDelivery.update({
        where: { id: d.id },
        data: { leaseOwner: `owner-${i}`, leaseUntil, leaseHost: i < 69 ? 'example.com' : null },
      });
    const lost = rows[68]!;
    await db.prisma.webhookDelivery.update({ where: { id: lost.id }, data: { leaseOwner: 'another-sender' } });
    // The lost claim's subscription had failed twice: an attempt whose claim was lost resets nothing.
    const other = await subscription(db, f, 'https://example.com/other');
    await db.prisma.webhookSubscription.update({ where: { id: other.id }, data: { failureStreak: 2 } });
    await db.prisma.webhookDelivery.update({ where: { id: lost.id }, data: { subscriptionId: other.id } });
    const now = await clockNow(db);
    const result = (status: number) => ({
      ok: status === 200,
      status,
      durationMs: 3,
      error: status === 200 ? null : `HTTP ${status}`,
      responseBody: 'x',
      retryAfter: undefined,
    });
    const input = (i: number, kind: 'delivered' | 'retry'): RecordInput => ({
      deliveryId: rows[i]!.id,
      subscriptionId: i === 68 ? other.id : sub.id,
      owner: `owner-${i}`,
      attempt: 1,
      startedAt: now,
      result: result(kind === 'delivered' ? 200 : 503),
      outcome: kind === 'delivered' ? { kind } : { kind, nextAttemptAt: new Date(now.getTime() + 10_000) },
      now,
      // The first attempt handed its slot to a held delivery (69), the second to one that ended in this group (2).
      transfer:
        i === 0
          ? { id: rows[69]!.id, owner: 'owner-69', host: 'example.com' }
          : i === 1
            ? { id: rows[2]!.id, owner: 'owner-2', host: 'example.com' }
            : undefined,
    });
    const sql = track(createSql(db));
    // 69 attempts ending at once: one group, in chunks of several sizes (64 + 4 + 1).
    const inputs = Array.from({ length: 69 }, (_, i) => input(i, i % 3 === 0 && i !== 68 ? 'retry' : 'delivered'));
    const recorded = await Promise.all(inputs.map((i) => recordAttempt(sql, i)));
    expect(recorded.map((r) => r.written)).toEqual(inputs.map((i) => i.deliveryId !== lost.id));
    const after = await db.prisma.webhookDelivery.findMany({ where: { webhookId: { in: webhookIds } }, orderBy: { id: 'asc' } });
    expect(after[68]).toMatchObject({ status: 'pending', attempts: 0, leaseOwner: 'another-sender', leaseHost: 'example.com' });
    for (const [i, d] of after.slice(0, 68).entries()) {
      if (i % 3 === 0)
        expect(d).toMatchObject({ status: 'pending', attempts: 1, lastError: 'HTTP 503', leaseOwner: null, deliveredAt: null });
      else expect(d).toMatchObject({ status: 'delivered', attempts: 1, lastError: null, leaseOwner: null, leaseHost: null });
    }
    expect((await db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: other.id } })).failureStreak).toBe(2);
    expect(after[69]).toMatchObject({ status: 'pending', leaseOwner: 'owner-69', leaseHost: 'example.com' });
    expect(after[70]).toMatchObject({ status: 'pending', leaseOwner: 'owner-70', leaseHost: null });
    const attempts = await db.prisma.webhookAttempt.findMany({ where: { deliveryId: { in: after.map((d) => d.id) } } });
    expect(attempts.map((a) => a.deliveryId).sort()).toEqual(
      after
        .slice(0, 68)
        .map((d) => d.id)
        .sort(),
    );
    expect(attempts.find((a) => a.deliveryId === after[0]!.id)).toMatchObject({
      number: 1,
      responseStatus: 503,
      error: 'HTTP 503',
      durationMs: 3,
    });
  });
});
