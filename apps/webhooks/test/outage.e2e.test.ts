import type { Db } from '@platform/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  advanceClock,
  clockNow,
  deliveries,
  freshDatabase,
  inProcessSender,
  receiver,
  setClock,
  storeAndApp,
  subscription,
  waitFor,
} from './helpers';

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;

beforeAll(async () => {
  database = await freshDatabase();
  db = database.db;
  await setClock(db, new Date('2026-11-22T00:00:00.000Z'));
});
afterAll(async () => {
  await database.drop();
});

/** Waits until the sender has attempted everything due on the service clock (nothing due, nothing claimed). */
async function settle(): Promise<void> {
  await waitFor(async () => {
    const now = await clockNow(db);
    const busy = await db.prisma.webhookDelivery.count({
      where: { status: 'pending', OR: [{ nextAttemptAt: { lte: now } }, { leaseOwner: { not: null } }] },
    });
    return busy === 0;
  }, 'the sender to settle');
}

/** Moves the manual clock to the next due delivery (at most `limit`), lets the sender work, and returns the clock. */
async function jump(limit: Date): Promise<Date> {
  const next = await db.prisma.webhookDelivery.findFirst({ where: { status: 'pending' }, orderBy: { nextAttemptAt: 'asc' } });
  const now = await clockNow(db);
  const target = next && next.nextAttemptAt < limit ? next.nextAttemptAt : limit;
  if (target > now) await advanceClock(db, (target.getTime() - now.getTime()) / 1000);
  await settle();
  return clockNow(db);
}

describe('an outage of the receiver (decisions §11.5)', () => {
  it('delivers everything after the receiver is down for an hour of service-clock time', async () => {
    // A port that refuses connections for now: a receiver opened and closed.
    const probe = await receiver();
    const port = probe.port;
    await probe.close();
    const f = await storeAndApp(db);
    const sub = await subscription(db, f, `http://127.0.0.1:${port}/hooks`);
    const ids = await deliveries(db, f, sub, 30);
    const start = await clockNow(db);
    const back = new Date(start.getTime() + 3600_000);
    const sender = inProcessSender(db);
    try {
      let now = start;
      while (now < back) now = await jump(back);
      // An hour of failures: every delivery was tried on the schedule (10 s, 30 s, 1 min, 5 min,
      // 15 min, 30 min: six attempts, the seventh is 1 h after the sixth) and none failed for good.
      const during = await db.prisma.webhookDelivery.findMany({ where: { webhookId: { in: ids } } });
      expect(during.every((d) => d.status === 'pending')).toBe(true);
      for (const d of during) expect(d.attempts).toBeGreaterThanOrEqual(6);
      const attempt = await db.prisma.webhookAttempt.findFirst({ where: { deliveryId: during[0]!.id } });
      expect(attempt?.error).toBe('connection refused');
      // The receiver returns on the same port; the next attempts get through.
      const r = await receiver(undefined, port);
      try {
        const limit = new Date(back.getTime() + 3 * 3600_000);
        while (
          (await db.prisma.webhookDelivery.count({ where: { webhookId: { in: ids }, status: 'delivered' } })) < ids.length &&
          now < limit
        ) {
          now = await jump(limit);
        }
        expect(new Set(r.received.map((x) => x.webhookId))).toEqual(new Set(ids));
        expect(await db.prisma.webhookDelivery.count({ where: { webhookId: { in: ids }, status: 'delivered' } })).toBe(ids.length);
        expect((await db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: sub.id } })).status).toBe('enabled');
      } finally {
        await r.close();
      }
    } finally {
      await sender.close();
    }
    // A bound on a hang: 12 s alone, 72 s in .ci/run on PostgreSQL on 2 cores (2026-11-26).
  }, 300_000);
});
