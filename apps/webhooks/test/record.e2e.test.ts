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
});
