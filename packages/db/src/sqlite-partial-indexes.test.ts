import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIMEOUT } from './databases.test-support';
import { createDb, migrate, type Db } from './index';

// Migration 20261127131500_partial_delivery_indexes_sqlite makes three indexes of
// webhook_deliveries hold only pending or leased rows. The statements that read them must still
// reach them, on both SQLite drivers: the sender's, which write `status = 'pending'` as a literal,
// and the API's through Prisma, which bind 'pending' as a parameter. And each scan starts at its
// rows: SQLite keeps `status = ?` as the first key of the search (PostgreSQL drops a condition the
// predicate implies, so there the indexes lead with the column after status: migration
// 20261128020000_pending_indexes_keyed_after_status). Migration 20261203100000_live_claims_index_sqlite
// keeps only the claims with a host (the attempts in flight) in the index of lease_until.

const INDEX = {
  claim: 'webhook_deliveries_status_subscription_id_next_attempt_at_id_lease_until_idx',
  due: 'webhook_deliveries_status_next_attempt_at_idx',
  live: 'webhook_deliveries_lease_until_idx',
};

describe.each(['better-sqlite3', 'libsql'] as const)('SQLite (%s): the partial indexes of webhook_deliveries', (driver) => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-db-partial-'));
  const url = `file:${join(dir, 'platform.db')}`;
  let db: Db;
  beforeAll(async () => {
    await migrate(url);
    db = createDb(url, { sqliteDriver: driver });
  }, TIMEOUT);
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const plan = async (sql: string, params: unknown[]) =>
    (await db.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params)).map((r) => r.detail).join(' | ');
  const now = new Date('2026-11-27T12:00:00Z');

  it('hold only pending rows (status) or claims with a host (lease_until)', async () => {
    const rows = await db.query<{ name: string; sql: string }>(
      `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name IN (?, ?, ?) ORDER BY name`,
      [INDEX.claim, INDEX.due, INDEX.live],
    );
    expect(rows.map((r) => [r.name, / WHERE (.*)$/.exec(r.sql)?.[1]])).toEqual([
      [INDEX.live, '"lease_host" IS NOT NULL'],
      [INDEX.due, `"status" = 'pending'`],
      [INDEX.claim, `"status" = 'pending'`],
    ]);
  });

  it("serve the sender's claim, first-due and live-claim reads", async () => {
    expect(
      await plan(
        `SELECT id FROM webhook_deliveries WHERE status = 'pending' AND subscription_id = ? AND next_attempt_at <= ?
         AND (lease_until IS NULL OR lease_until < ? OR lease_until > ?) ORDER BY next_attempt_at, id LIMIT ?`,
        [1n, now, now, now, 10],
      ),
    ).toContain(`${INDEX.claim} (status=? AND subscription_id=? AND next_attempt_at<?)`);
    // The walk's seek for the next subscription id starts at it (status is the scan's first key).
    expect(
      await plan(
        `SELECT subscription_id FROM webhook_deliveries WHERE status = 'pending' AND subscription_id > ? ORDER BY subscription_id LIMIT 1`,
        [1n],
      ),
    ).toContain(`${INDEX.claim} (status=? AND subscription_id>?)`);
    expect(
      await plan(
        `SELECT next_attempt_at FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at > ? ORDER BY next_attempt_at LIMIT 1`,
        [now],
      ),
    ).toContain(`${INDEX.due} (status=? AND next_attempt_at>?)`);
    expect(
      await plan(
        `SELECT lease_host, app_id, subscription_id, COUNT(*) FROM webhook_deliveries
         WHERE lease_until > ? AND lease_until <= ? AND lease_host IS NOT NULL GROUP BY lease_host, app_id, subscription_id`,
        [now, now],
      ),
    ).toContain(INDEX.live);
  });

  it("serve a read that binds 'pending' as a parameter (Prisma's), and not one that binds another status", async () => {
    const read = `SELECT id FROM webhook_deliveries WHERE subscription_id = ? AND status = ?`;
    expect(await plan(read, [1n, 'pending'])).toContain(INDEX.claim);
    expect(await plan(read, [1n, 'failed'])).not.toContain(INDEX.claim);
  });
});
