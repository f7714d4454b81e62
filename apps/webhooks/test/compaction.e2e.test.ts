/*
 * Issue 48, PostgreSQL: after a retention pass the senders give the disk back when the history's
 * tables are much larger than their rows (src/compact.ts; when, in src/compact.test.ts). Runs under
 * TEST_DATABASE_URL; on SQLite the file shrinks as each pass goes (retention.e2e.test.ts).
 */
import { openPgSession } from '@platform/db';
import { describe, expect, it } from 'vitest';
import { compactHistory } from '../src/compact';
import {
  closedAfterEach,
  expectCountsInStep,
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

const NOW = new Date('2026-11-22T12:00:00Z');
const DAY = 86_400_000;
const database = fileDatabase(async (db) => setClock(db, NOW));
const track = closedAfterEach();

describe.skipIf(!process.env.TEST_DATABASE_URL)('the compaction of the delivery history (issue 48, PostgreSQL)', () => {
  // On PostgreSQL a DELETE frees space inside the files, never the files: the rows a pass keeps are
  // the newest, at the files' end, so the end cannot be cut off (bench/scale: 9.4 GB after a pass
  // cut a 10,000,000-delivery history to its last 5,000). The pass then moves them to the front,
  // online, and vacuums the end away (src/compact.ts).
  it('PostgreSQL: the files shrink back after a pass removes most of the history, beside a sender delivering, nothing lost', async () => {
    const { db } = database;
    await setClock(db, NOW);
    await db.query('DELETE FROM webhook_attempts');
    await db.query('DELETE FROM webhook_deliveries');
    // Each delivery answered after 5 ms: the sender is still at work while the pass runs.
    const r = track(await receiver((_q, res) => void setTimeout(() => res.writeHead(200).end('ok'), 5)));
    const f = await storeAndApp(db);
    const sub = await subscription(db, f, `${r.url}/hook`);
    const OLD = 60_000;
    const KEPT = 300; // the newest: 200 delivered 2 days ago, then 100 pending, due now
    const at = (ms: string) => `(to_timestamp((${ms}) / 1000.0) AT TIME ZONE 'UTC')`;
    const old = NOW.getTime() - 40 * DAY;
    const recent = NOW.getTime() - 2 * DAY;
    await db.query(
      `INSERT INTO webhook_deliveries (store_id, app_id, subscription_id, topic, webhook_id, api_version, body, triggered_at,
           status, attempts, next_attempt_at, delivered_at, created_at, updated_at)
         SELECT ${f.storeId}, ${f.appId}, ${sub.id}, 'inventory_items/update', 'compact-' || x, 'v20260901',
           '{"inventory_item":{"id":"' || x || '","note":"' || repeat('n', 300) || '"}}', made, st, 1,
           CASE st WHEN 'pending' THEN ${at(String(NOW.getTime() - 60_000))} ELSE made END,
           CASE st WHEN 'delivered' THEN made END, made, made
         FROM (SELECT x, CASE WHEN x > ${OLD + KEPT - 100} THEN 'pending' ELSE 'delivered' END AS st,
                 CASE WHEN x > ${OLD} THEN ${at(`${recent} + x`)} ELSE ${at(`${old} + x * 60`)} END AS made
               FROM generate_series(1, ${OLD + KEPT}) AS s(x)) AS rows`,
    );
    await db.query(
      `INSERT INTO webhook_attempts (delivery_id, number, started_at, duration_ms, response_status, response_body, created_at)
         SELECT id, 1, created_at, 5, 200, repeat('r', 100), created_at FROM webhook_deliveries WHERE status = 'delivered'`,
    );
    await db.query('VACUUM ANALYZE webhook_deliveries, webhook_attempts');
    const size = async (relation: string) => {
      const [row] = await db.query<{ bytes: bigint }>(`SELECT pg_relation_size('${relation}') AS bytes`);
      return Number(row!.bytes);
    };
    const sizes = async () => ({
      deliveries: await size('webhook_deliveries'),
      attempts: await size('webhook_attempts'),
      primaryKey: await size('webhook_deliveries_pkey'),
    });
    const before = await sizes();
    const keptBefore = await db.query<{ id: bigint; webhook_id: string; body: string }>(
      `SELECT id, webhook_id, body FROM webhook_deliveries WHERE created_at > ? ORDER BY id`,
      [new Date(NOW.getTime() - 30 * DAY)],
    );
    expect(keptBefore).toHaveLength(KEPT);
    const pendingWebhooks = (
      await db.query<{ webhook_id: string }>(`SELECT webhook_id FROM webhook_deliveries WHERE status = 'pending'`)
    ).map((d) => d.webhook_id);

    // Events keep coming while the pass removes, moves and vacuums.
    // Its warnings shown (a compaction that fails is logged and the pass goes on: seen once in CI,
    // the attempts table left at its size, with nothing to say why).
    const sender = track(
      inProcessSender(db, { PLATFORM_SENDER_MAINTENANCE_MS: '3600000', PLATFORM_SENDER_RETENTION_BATCH: '5000', LOG_LEVEL: 'warn' }),
    );
    let passing = true;
    const pass = sender
      .maintenance()!
      .runOnce()
      .finally(() => (passing = false));
    const bodies: string[] = [];
    while (passing || bodies.length < 20) {
      const body = `{"inventory_item":{"id":"new-${bodies.length}"}}`;
      bodies.push(body);
      await outboxEvent(db, f, body);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await pass).toMatchObject({ deliveries: OLD, attempts: OLD });
    await waitFor(async () => (await statusCounts(db))['pending'] === undefined, 'every pending delivery delivered', 120_000);
    await sender.close();

    const after = await sizes();
    console.log(`PostgreSQL files before and after the pass (bytes): ${JSON.stringify({ before, after })}`);
    // 60,300 deliveries of about 450 bytes, pages half full, cut to the 300 kept and the new ones.
    expect(after.deliveries).toBeLessThan(before.deliveries / 10);
    expect(after.attempts).toBeLessThan(before.attempts / 10);
    expect(after.primaryKey).toBeLessThan(before.primaryKey / 5);
    // Every row kept is the same row, under the same id; the pending ones delivered once each.
    const keptAfter = await db.query<{ id: bigint; webhook_id: string; body: string }>(
      `SELECT id, webhook_id, body FROM webhook_deliveries WHERE webhook_id LIKE 'compact-%' ORDER BY id`,
    );
    expect(keptAfter).toEqual(keptBefore);
    const times = new Map<string, number>();
    for (const x of r.received) times.set(x.webhookId, (times.get(x.webhookId) ?? 0) + 1);
    for (const webhookId of pendingWebhooks) expect(times.get(webhookId)).toBe(1);
    const gotBodies = new Set(r.received.map((x) => x.body.toString()));
    for (const body of bodies) expect(gotBodies.has(body)).toBe(true);
    expect(await db.prisma.webhookDelivery.count({ where: { storeId: f.storeId, status: 'delivered' } })).toBe(KEPT + bodies.length);
    await expectCountsInStep(db);
  }, 180_000);

  // A look at the files while a large write is under way: VACUUM counts no row whose transaction
  // has not committed, though its pages are already in the file. Found by bench/webhooks
  // (2026-12-03): the senders' look came while a burst of 20,000 events was being written into a
  // queue of 3,000, the count said the file was several times its rows, and once the burst
  // committed the compaction set out to move all of it: batches of 500 rows locked for 16-18 s each
  // (every claim and record of those rows waited), 40,000 pages written for 20,000 rows, and the
  // sender delivered 46 a second instead of 2,000 for minutes.
  it('PostgreSQL: a queue about its rows size is left alone when a burst of events commits during the look', async () => {
    const { db, url } = database;
    const f = await storeAndApp(db);
    const sub = await subscription(db, f, 'https://burst.example/hook');
    const insert = (prefix: string, n: number) =>
      `INSERT INTO webhook_deliveries (store_id, app_id, subscription_id, topic, webhook_id, api_version, body, triggered_at,
           status, attempts, next_attempt_at, created_at, updated_at)
         SELECT ${f.storeId}, ${f.appId}, ${sub.id}, 'inventory_items/update', '${prefix}-' || x, 'v20260901',
           '{"inventory_item":{"id":"' || x || '","note":"' || repeat('n', 300) || '"}}', now(), 'pending', 0, now(), now(), now()
         FROM generate_series(1, ${n}) AS s(x)`;
    const pages = async () => {
      const [row] = await db.query<{ pages: bigint }>(`SELECT pg_relation_size('webhook_deliveries') / 8192 AS pages`);
      return Number(row!.pages);
    };
    const writer = openPgSession(url);
    const session = openPgSession(url);
    try {
      // The queue, its count reported before the VACUUM: a connection reports its writes at most
      // once a second (or after 10 s idle), and a report that comes after a VACUUM is added to the
      // VACUUM's count (CI, 2026-12-04: the queue's 3,000 inserts reported after it, 6,000 rows
      // estimated, and the look saw no bloat). The look's estimate is exercised, not the timing.
      await session.query('DELETE FROM webhook_attempts');
      await session.query('DELETE FROM webhook_deliveries');
      await session.query(insert('queued', 3_000));
      await session.query('SELECT pg_stat_force_next_flush()');
      await session.query('VACUUM ANALYZE webhook_deliveries');
      const [stats] = await session.query<{ n: bigint }>(
        `SELECT n_live_tup AS n FROM pg_stat_user_tables WHERE relid = 'webhook_deliveries'::regclass`,
      );
      expect(Number(stats!.n)).toBe(3_000);
      // The burst, written and not yet committed: its pages are in the file, its rows in no count.
      await writer.query('BEGIN');
      await writer.query(insert('burst', 20_000));
      const pagesWithBurst = await pages();
      // One look sees a file larger than its counted rows, and waits for the next: a VACUUM now
      // would record the table as nearly empty (the burst's rows uncounted, its pages counted).
      const firstLook: string[] = [];
      const suspects = new Set<string>();
      await compactHistory(
        async <T>(text: string, params?: unknown[]) => {
          firstLook.push(text);
          return session.query<T>(text, params);
        },
        {},
        () => false,
        suspects,
      );
      expect(firstLook.filter((text) => text.includes('VACUUM'))).toEqual([]);
      expect([...suspects]).toEqual(['webhook_deliveries']);
      // The next look, the burst still under way, counts; the burst commits just before the
      // compaction reads which rows are past its target.
      let committed = false;
      const started = performance.now();
      const done = await compactHistory(
        async <T>(text: string, params?: unknown[]) => {
          if (!committed && /WHERE ctid >=/.test(text)) {
            committed = true;
            await writer.query('COMMIT');
          }
          return session.query<T>(text, params);
        },
        {},
        () => false,
        suspects,
      );
      expect(committed).toBe(true);
      const seconds = (performance.now() - started) / 1000;
      if (!committed) await writer.query('COMMIT');
      console.log(
        `compaction during a burst: ${JSON.stringify(done)} in ${seconds.toFixed(1)} s; pages ${pagesWithBurst} -> ${await pages()}`,
      );
      // Nothing moved: 23,000 rows fill the file they are in.
      expect(done.find((d) => d.table === 'webhook_deliveries')?.moved ?? 0).toBe(0);
      expect(await pages()).toBeLessThanOrEqual(pagesWithBurst);
      const [row] = await db.query<{ n: bigint }>(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'`);
      expect(Number(row!.n)).toBe(23_000);
    } finally {
      await writer.close();
      await session.close();
    }
  }, 60_000);

  // The rows a page holds are counted as the newest lie: older rows much larger than the newest make
  // the table look larger than its rows need while its front has no room. The compaction then
  // cannot move them; it stops after the first batch that stays where it was.
  it('PostgreSQL: rows that find no room at the front are not moved round after round', async () => {
    const { db, url } = database;
    await db.query('DELETE FROM webhook_attempts');
    await db.query('DELETE FROM webhook_deliveries');
    const f = await storeAndApp(db);
    const sub = await subscription(db, f, 'https://mixed.example/hook');
    const insert = (prefix: string, n: number, note: number) =>
      `INSERT INTO webhook_deliveries (store_id, app_id, subscription_id, topic, webhook_id, api_version, body, triggered_at,
           status, attempts, next_attempt_at, delivered_at, created_at, updated_at)
         SELECT ${f.storeId}, ${f.appId}, ${sub.id}, 'inventory_items/update', '${prefix}-' || x, 'v20260901',
           '{"inventory_item":{"id":"' || x || '","note":"' || repeat(md5(x::text), ${note} / 32) || '"}}', now(), 'delivered', 1,
           now(), now(), now(), now()
         FROM generate_series(1, ${n}) AS s(x)`;
    // About 1,800 bytes a row (four to a page at half full), then 300 rows of about 200.
    await db.query(insert('large', 6_000, 1_700));
    await db.query(insert('small', 300, 64));
    await db.query('VACUUM ANALYZE webhook_deliveries');
    const pages = async () => {
      const [row] = await db.query<{ pages: bigint }>(`SELECT pg_relation_size('webhook_deliveries') / 8192 AS pages`);
      return Number(row!.pages);
    };
    const before = await pages();
    const session = openPgSession(url);
    try {
      const statements: string[] = [];
      // Seen bloated at the look before, as a sender's second look would.
      const done = await compactHistory(
        async <T>(text: string, params?: unknown[]) => {
          statements.push(text);
          return session.query<T>(text, params);
        },
        {},
        () => false,
        new Set(['webhook_deliveries']),
      );
      const batches = statements.filter((text) => text.includes('DO $compact$')).length;
      console.log(`rows with no room at the front: ${JSON.stringify(done)}; ${batches} batches; pages ${before} -> ${await pages()}`);
      // One batch a try finds out (five tries at most), not every batch of the end's rows.
      expect(batches).toBeLessThanOrEqual(5);
      expect(await pages()).toBeLessThan(before * 1.5);
    } finally {
      await session.close();
    }
  }, 120_000);

  // A sender stopped during REINDEX INDEX CONCURRENTLY leaves the new index's invalid copy
  // (`<name>_ccnew`), which PostgreSQL keeps updating on every write until someone drops it.
  it('PostgreSQL: the next compaction drops the invalid copy an index rebuild cut short left', async () => {
    const { db, url } = database;
    const f = await storeAndApp(db);
    const sub = await subscription(db, f, 'https://old.example/hook');
    await db.query(
      `INSERT INTO webhook_deliveries (store_id, app_id, subscription_id, topic, webhook_id, api_version, body, triggered_at,
           status, attempts, next_attempt_at, created_at, updated_at)
         SELECT ${f.storeId}, ${f.appId}, ${sub.id}, 'inventory_items/update', 'ccnew-' || x, 'v20260901', '{}', now(), 'delivered', 1,
           now(), now(), now()
         FROM generate_series(1, 2) AS s(x)`,
    );
    const invalid = async () =>
      (
        await db.query<{ name: string }>(
          `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
           WHERE i.indrelid = 'webhook_deliveries'::regclass AND NOT i.indisvalid ORDER BY c.relname`,
        )
      ).map((r) => r.name);
    // A concurrent build that fails (a unique index over two rows of one store) stays, invalid.
    await expect(
      db.query('CREATE UNIQUE INDEX CONCURRENTLY webhook_deliveries_store_id_app_id_id_idx_ccnew ON webhook_deliveries (store_id)'),
    ).rejects.toThrow();
    expect(await invalid()).toEqual(['webhook_deliveries_store_id_app_id_id_idx_ccnew']);
    const session = openPgSession(url);
    try {
      await compactHistory(session.query.bind(session), {});
    } finally {
      await session.close();
    }
    expect(await invalid()).toEqual([]);
    // The index it was a copy of is there, valid.
    const [kept] = await db.query<{ valid: boolean }>(
      `SELECT i.indisvalid AS valid FROM pg_index i WHERE i.indexrelid = 'webhook_deliveries_store_id_app_id_id_idx'::regclass`,
    );
    expect(kept!.valid).toBe(true);
  });

  // A role that may write the tables but does not own them cannot VACUUM them (PostgreSQL only
  // warns) nor rebuild their indexes: the compaction refuses, once per pass, instead of moving rows
  // at every pass for nothing.
  it('PostgreSQL: a role that does not own the tables is told they are not compacted', async () => {
    const { db, url } = database;
    const role = `compact_${Math.random().toString(36).slice(2, 8)}`;
    await db.query(`CREATE ROLE ${role} LOGIN`);
    try {
      await db.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
      await db.query(`GRANT SELECT, UPDATE ON webhook_deliveries, webhook_attempts TO ${role}`);
      const asRole = new URL(url);
      asRole.username = role;
      asRole.password = '';
      const session = openPgSession(asRole.toString());
      try {
        await expect(compactHistory(session.query.bind(session), { webhook_deliveries: 1_000_000 })).rejects.toThrow(
          /does not own webhook_deliveries and webhook_attempts/,
        );
        // The lock is given back: the owner's compaction runs.
        const own = openPgSession(url);
        try {
          await expect(compactHistory(own.query.bind(own), {})).resolves.toEqual([]);
        } finally {
          await own.close();
        }
      } finally {
        await session.close();
      }
    } finally {
      await db.query(`REVOKE ALL ON webhook_deliveries, webhook_attempts FROM ${role}`);
      await db.query(`REVOKE ALL ON SCHEMA public FROM ${role}`);
      await db.query(`DROP ROLE ${role}`);
    }
  });
});
