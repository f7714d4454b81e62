/*
 * pgTokenStore against a real PostgreSQL: a database of this file's own on TEST_DATABASE_URL's server
 * (CI and `pnpm --filter @platform/sdk test:pg` set it), dropped at the end.
 */
import { Client, Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgTokenStore } from '../src/token-store-pg';
import { freshPgDatabase } from './pg-database';
import { tokenStoreContract } from './token-store-contract';

let url = '';

describe.runIf(process.env.TEST_DATABASE_URL)('pgTokenStore', () => {
  const pools: Pool[] = [];
  let database: Awaited<ReturnType<typeof freshPgDatabase>>;
  beforeAll(async () => {
    database = await freshPgDatabase();
    url = database.url;
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await database?.drop();
  });

  describe('with its own pool (connectionString)', () => {
    tokenStoreContract((options) => pgTokenStore({ connectionString: url, ...options }));
  });

  describe("on the app's pool, in a schema-qualified table", () => {
    tokenStoreContract((options) => {
      const pool = new Pool({ connectionString: url });
      pool.on('error', () => undefined); // as pg asks of every app: an idle connection that breaks is dropped
      pools.push(pool);
      return pgTokenStore({ pool, table: 'public.app_tokens', ...options });
    });
  });

  it('frees the lock of a process whose connection died inside its refresh', async () => {
    const store = pgTokenStore({ connectionString: url, lockWaitMs: 10_000 });
    await store.get('warm-up'); // the table exists
    const crashed = new Client({ connectionString: url });
    crashed.on('error', () => undefined); // its connection is about to be killed
    await crashed.connect();
    await crashed.query('BEGIN');
    await crashed.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', ['platform_sdk_tokens', 'crashing']);
    const waiting = store.withLock('crashing', async () => 'recovered');
    // The holder's connection goes away without a COMMIT, as with a process that died.
    await crashed.query('SELECT pg_terminate_backend(pg_backend_pid())').catch(() => undefined);
    await crashed.end().catch(() => undefined);
    expect(await waiting).toBe('recovered');
    await store.close();
  });

  it('creates its table once when many instances start at once', async () => {
    const stores = Array.from({ length: 4 }, () => pgTokenStore({ connectionString: url, table: 'raced_tokens' }));
    await Promise.all(stores.map((s, i) => s.set({ handle: `h${i}`, accessToken: `t${i}`, expiresAt: '2026-11-22T20:00:00Z', scope: '' })));
    expect(await stores[0]!.get('h3')).toMatchObject({ accessToken: 't3' });
    await Promise.all(stores.map((s) => s.close()));
  });

  it('refuses a table name it would have to quote', () => {
    expect(() => pgTokenStore({ connectionString: 'postgresql://x', table: 'x; DROP TABLE y' })).toThrow(/table name/);
  });
});
