import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { throwawayPgDatabase, TIMEOUT } from './databases.test-support';
import { createDb, migrate, readDeliveryCounts, type Db } from './index';

// Issue 48, migration 20261202120000_webhook_delivery_counts: the counts by status of an existing
// history are seeded when the migration runs, so /metrics is right from the first scrape after an
// upgrade, and writes that go on during the migration (a rolling upgrade: the previous release's
// API and senders keep working) are counted once, neither lost nor twice.

const MIGRATION = '20261202120000_webhook_delivery_counts';

/** The schema of the release before: the migration not applied. */
async function beforeTheMigration(db: Db): Promise<void> {
  if (db.provider === 'postgresql') {
    await db.query('DROP TABLE webhook_delivery_counts');
    for (const event of ['insert', 'update', 'delete', 'truncate']) {
      await db.query(`DROP TRIGGER webhook_delivery_counts_${event} ON webhook_deliveries`);
      await db.query(`DROP FUNCTION webhook_delivery_counts_on_${event}()`);
    }
  } else {
    for (const event of ['insert', 'update', 'delete']) await db.query(`DROP TRIGGER webhook_delivery_counts_${event}`);
    await db.query('DROP TABLE webhook_delivery_counts');
  }
  await db.query('DELETE FROM _prisma_migrations WHERE migration_name = ?', [MIGRATION]);
}

let seq = 0;
/** `n` deliveries of `status`, written as the previous release's outbox writes them (no counts then). */
async function history(db: Db, status: string, n: number): Promise<void> {
  const now = new Date('2026-11-22T12:00:00Z');
  for (let i = 0; i < n; i++) {
    await db.query(
      `INSERT INTO webhook_deliveries (store_id, app_id, subscription_id, topic, webhook_id, api_version, body, triggered_at, status, next_attempt_at, created_at, updated_at)
       VALUES (1, 1, 1, 'inventory_items/update', ?, 'v20260901', '{}', ?, ?, ?, ?, ?)`,
      [`w-${++seq}`, now, status, now, now, now],
    );
  }
}

async function actual(db: Db): Promise<Record<string, number>> {
  const rows = await db.query<{ status: string; n: bigint }>('SELECT status, COUNT(*) AS n FROM webhook_deliveries GROUP BY status');
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]).sort());
}

async function counted(db: Db): Promise<Record<string, number>> {
  const counts = await readDeliveryCounts(db.query.bind(db));
  return Object.fromEntries([...counts].filter(([, n]) => n !== 0).sort());
}

describe('SQLite: the migration seeds the counts of an existing history', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-db-counts-'));
  const url = `file:${join(dir, 'platform.db')}`;
  let db: Db;
  beforeAll(async () => {
    await migrate(url);
    db = createDb(url);
  }, TIMEOUT);
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'counts what was there, then follows inserts, status changes and deletes',
    async () => {
      await beforeTheMigration(db);
      await history(db, 'pending', 3);
      await history(db, 'delivered', 5);
      await history(db, 'failed', 2);
      // The schema engine migrates SQLite under `locking_mode=EXCLUSIVE`: no other connection may be
      // open on the file meanwhile (on SQLite an upgrade stops the running release first).
      await db.close();
      expect(await migrate(url)).toEqual({ applied: [MIGRATION] });
      db = createDb(url);
      expect(await counted(db)).toEqual({ delivered: 5, failed: 2, pending: 3 });
      await history(db, 'pending', 1);
      await db.query(`UPDATE webhook_deliveries SET status = 'delivered' WHERE status = 'pending'`);
      await db.query(`DELETE FROM webhook_deliveries WHERE status = 'failed'`);
      expect(await counted(db)).toEqual(await actual(db));
      expect(await counted(db)).toEqual({ delivered: 9 });
    },
    TIMEOUT,
  );
});

const pgUrl = process.env['TEST_DATABASE_URL'];

describe.runIf(pgUrl?.startsWith('postgres'))('PostgreSQL: the migration seeds the counts of an existing history', () => {
  const database = throwawayPgDatabase(pgUrl, 'platform_db_counts');
  let db: Db;
  beforeAll(async () => {
    await database.create();
    await migrate(database.url());
    db = createDb(database.url());
  }, TIMEOUT);
  afterAll(async () => {
    await db.close();
    await database.drop();
  }, TIMEOUT);

  it(
    'counts what was there and what the running release writes during the migration, each once',
    async () => {
      await beforeTheMigration(db);
      await history(db, 'pending', 30);
      await history(db, 'delivered', 50);
      await history(db, 'failed', 20);
      // The previous release keeps writing while the migration runs: events, and senders finishing them.
      const writer = createDb(database.url());
      let writing = true;
      let writes = 0;
      const writing$ = (async () => {
        while (writing) {
          await history(writer, 'pending', 2);
          await writer.query(
            `UPDATE webhook_deliveries SET status = 'delivered' WHERE id = (SELECT MIN(id) FROM webhook_deliveries WHERE status = 'pending')`,
          );
          writes++;
        }
      })();
      try {
        while (writes < 5) await new Promise((r) => setTimeout(r, 10));
        expect(await migrate(database.url())).toEqual({ applied: [MIGRATION] });
        const after = writes;
        while (writes < after + 5) await new Promise((r) => setTimeout(r, 10));
      } finally {
        writing = false;
        await writing$;
        await writer.close();
      }
      expect(await counted(db)).toEqual(await actual(db));
      expect((await counted(db))['delivered']).toBeGreaterThan(50);
    },
    TIMEOUT,
  );
});
