/*
 * Issue 48: /metrics shows deliveries by status from counts the database keeps (migration
 * 20261202120000_webhook_delivery_counts: triggers on webhook_deliveries; a ledger on PostgreSQL,
 * one row per status on SQLite), not from a COUNT(*) over the whole history. The counts must follow
 * every statement that writes the table, whoever sends it: the outbox, a sender's claims and
 * records, the API's updateMany (a subscription removed, a redelivery), a delete (retention, or a
 * purge by hand), so that a sender of the previous release, which knows nothing of them, keeps them
 * right too. Each step compares them with the rows themselves. Runs on SQLite, and on PostgreSQL
 * under TEST_DATABASE_URL.
 */
import { FOLD_DELIVERY_COUNTS, readDeliveryCounts, type Db } from '@platform/db';
import { describe, expect, it } from 'vitest';
import {
  closedAfterEach,
  deliveries,
  fileDatabase,
  inProcessSender,
  outboxEvent,
  receiver,
  setClock,
  statusCounts,
  storeAndApp,
  subscription,
  waitFor,
} from './helpers';

const database = fileDatabase(async (db) => setClock(db, new Date('2026-11-22T12:00:00Z')));
const track = closedAfterEach();

/** The kept counts, statuses at zero left out (as the rows' own GROUP BY leaves them out). */
async function kept(db: Db): Promise<Record<string, number>> {
  const counts = await readDeliveryCounts(db.query.bind(db));
  return Object.fromEntries([...counts].filter(([, n]) => n !== 0).sort(([a], [b]) => a.localeCompare(b)));
}

async function expectInStep(db: Db, expected?: Record<string, number>): Promise<void> {
  const actual = await statusCounts(db);
  const sorted = Object.fromEntries(Object.entries(actual).sort(([a], [b]) => a.localeCompare(b)));
  expect(await kept(db)).toEqual(sorted);
  if (expected) expect(sorted).toEqual(expected);
}

describe('the counts of deliveries by status (issue 48)', () => {
  it('follow the outbox, a sender delivering and failing, the API updateMany, a redelivery and deletes', async () => {
    const { db } = database;
    await expectInStep(db, {});
    const ok = track(await receiver());
    const gone = track(await receiver((_q, res) => res.writeHead(410).end('gone')));
    const f = await storeAndApp(db);
    const good = await subscription(db, f, `${ok.url}/ok`);
    const bad = await subscription(db, f, `${gone.url}/gone`);

    // The outbox's own transaction (one multi-row INSERT per event), and rows written by Prisma.
    await outboxEvent(db, f, '{"inventory_item":{"id":"1"}}');
    await deliveries(db, f, good, 5);
    await expectInStep(db, { pending: 7 });

    // A sender claims (no status moves), delivers, and meets a 410: that delivery fails and the
    // subscription is disabled.
    const sender = track(inProcessSender(db));
    await waitFor(async () => (await statusCounts(db))['pending'] === undefined, 'every delivery finished');
    await sender.close();
    await expectInStep(db, { delivered: 6, failed: 1 });

    // Another event: only the enabled subscription gets it.
    await outboxEvent(db, f, '{"inventory_item":{"id":"2"}}');
    await expectInStep(db, { delivered: 6, failed: 1, pending: 1 });

    // The API's updateMany: a subscription's pending deliveries failed when it is removed.
    await db.prisma.webhookDelivery.updateMany({ where: { subscriptionId: good.id, status: 'pending' }, data: { status: 'failed' } });
    await expectInStep(db, { delivered: 6, failed: 2 });

    // A redelivery (failed -> pending), and an update that leaves the status as it is.
    const [failed] = await db.prisma.webhookDelivery.findMany({ where: { subscriptionId: bad.id, status: 'failed' } });
    await db.prisma.webhookDelivery.updateMany({ where: { id: failed!.id, status: 'failed' }, data: { status: 'pending', attempts: 0 } });
    await db.query(`UPDATE webhook_deliveries SET status = status, last_error = 'x' WHERE subscription_id = ?`, [good.id]);
    await expectInStep(db, { delivered: 6, failed: 1, pending: 1 });

    // Deletes: one by one and a whole store's at once.
    const [one] = await db.prisma.webhookDelivery.findMany({ where: { status: 'delivered' }, take: 1 });
    await db.prisma.webhookDelivery.delete({ where: { id: one!.id } });
    await expectInStep(db, { delivered: 5, failed: 1, pending: 1 });
    await db.query(`DELETE FROM webhook_deliveries WHERE store_id = ?`, [f.storeId]);
    await expectInStep(db, {});
  });

  it.runIf(process.env.TEST_DATABASE_URL)(
    'PostgreSQL: a fold keeps every total while statements append beside it, and a TRUNCATE empties them',
    async () => {
      const { db } = database;
      const f = await storeAndApp(db);
      const sub = await subscription(db, f, 'https://counts.example/hook');
      // Writers append to the ledger while folds run: every total stays what the rows say.
      let writing = true;
      const writer = (async () => {
        let i = 0;
        while (writing) {
          await deliveries(db, f, sub, 3);
          await db.query(
            `UPDATE webhook_deliveries SET status = ? WHERE id IN (SELECT id FROM webhook_deliveries WHERE status = 'pending' LIMIT 2)`,
            [i++ % 2 ? 'delivered' : 'failed'],
          );
        }
      })();
      for (let i = 0; i < 20; i++) await Promise.all([db.query(FOLD_DELIVERY_COUNTS), db.query(FOLD_DELIVERY_COUNTS)]);
      writing = false;
      await writer;
      await expectInStep(db);
      await db.query(FOLD_DELIVERY_COUNTS);
      // Folded: one row per status that has deliveries.
      const rows = await db.query<{ status: string }>('SELECT status FROM webhook_delivery_counts ORDER BY status');
      expect(rows.map((r) => r.status)).toEqual(Object.keys(await statusCounts(db)).sort());
      await expectInStep(db);
      await db.query('TRUNCATE webhook_deliveries');
      await expectInStep(db, {});
      expect(await db.query('SELECT status FROM webhook_delivery_counts')).toEqual([]);
    },
  );
});
