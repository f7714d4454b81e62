import type { SharedTokenStore, StoredToken } from '@platform/sdk';
import { checkTableName, tokenFromRow, type TokenRow } from './token-rows';

interface Queryable {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}
/** A `pg.Pool` (or anything with its `query` and `connect`). */
export interface PgPoolLike extends Queryable {
  connect(): Promise<Queryable & { release(error?: Error | boolean): void }>;
  end?(): Promise<void>;
}

export interface PgTokenStoreOptions {
  /** `postgresql://...`: the store makes a pool with the `pg` package (an optional peer: `npm i pg`)... */
  connectionString?: string;
  /** ...or a pool of your own; `close()` leaves it open. It needs two free connections during a refresh. */
  pool?: PgPoolLike;
  /** Default `platform_sdk_tokens`, created when missing; `schema.table` is accepted. */
  table?: string;
  /** How long a process waits for another's refresh before giving up with an error (default 60 s). */
  lockWaitMs?: number;
}

/**
 * A `TokenStore` in a PostgreSQL table, for apps that run several processes: every process sees the
 * tokens the others stored, and a refresh holds a transaction-level advisory lock on the store's
 * handle, so one process refreshes while the others wait for its token; a process that dies holding
 * it releases it with its connection. Tokens are bearer credentials stored as given: keep the table
 * readable by the app's role only.
 */
export function pgTokenStore(options: PgTokenStoreOptions): SharedTokenStore {
  if ((options.connectionString === undefined) === (options.pool === undefined)) {
    throw new TypeError('pgTokenStore: give exactly one of connectionString or pool');
  }
  const table = checkTableName('pgTokenStore', options.table ?? 'platform_sdk_tokens', true);
  const lockWaitMs = Math.max(1, Math.floor(options.lockWaitMs ?? 60_000));
  let owned: PgPoolLike | undefined;

  /** `fn` inside a transaction holding the advisory lock named by `name` (hashed; a collision only serialises). */
  async function locked<T>(pool: PgPoolLike, name: string, fn: () => Promise<T>): Promise<T> {
    const connection = await pool.connect();
    try {
      await connection.query('BEGIN');
      await connection.query(`SET LOCAL lock_timeout = ${lockWaitMs}`);
      await connection.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [table, name]);
      const result = await fn();
      await connection.query('COMMIT');
      return result;
    } catch (error) {
      await connection.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      connection.release();
    }
  }

  // Connected and the table made on first use, so importing this entry without the peer costs nothing.
  const ready = (async () => {
    let pool = options.pool;
    if (!pool) {
      let Pool: new (o: { connectionString: string }) => PgPoolLike;
      try {
        const loaded = (await import('pg')) as unknown as { Pool?: typeof Pool; default?: { Pool: typeof Pool } };
        Pool = (loaded.Pool ?? loaded.default!.Pool)!;
      } catch {
        throw new Error('@platform/sdk/token-store-pg needs the pg package (or pass your own pool): npm install pg');
      }
      const created = new Pool({ connectionString: options.connectionString! }) as PgPoolLike & {
        on(event: 'error', f: () => void): unknown;
      };
      // An idle connection that breaks (a server restart) is dropped by the pool; unheard, the
      // error event would end the app's process.
      created.on('error', () => undefined);
      pool = owned = created;
    }
    const p = pool;
    // Two processes starting at once would race on CREATE TABLE IF NOT EXISTS: made under the lock.
    await locked(p, '(create table)', () =>
      p.query(
        `CREATE TABLE IF NOT EXISTS ${table} (handle TEXT PRIMARY KEY, access_token TEXT NOT NULL, expires_at TEXT NOT NULL, scope TEXT NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
      ),
    );
    return p;
  })();
  ready.catch(() => undefined);

  return {
    async get(handle) {
      const { rows } = await (
        await ready
      ).query(`SELECT handle, access_token, expires_at, scope FROM ${table} WHERE handle = $1`, [handle]);
      return rows[0] ? tokenFromRow(rows[0] as TokenRow) : undefined;
    },
    async set(token: StoredToken) {
      await (
        await ready
      ).query(
        `INSERT INTO ${table} (handle, access_token, expires_at, scope, updated_at) VALUES ($1, $2, $3, $4, now())
         ON CONFLICT (handle) DO UPDATE SET access_token = excluded.access_token, expires_at = excluded.expires_at, scope = excluded.scope, updated_at = now()`,
        [token.handle, token.accessToken, token.expiresAt, token.scope],
      );
    },
    async delete(handle) {
      await (await ready).query(`DELETE FROM ${table} WHERE handle = $1`, [handle]);
    },
    async withLock(handle, fn) {
      try {
        return await locked(await ready, handle, fn);
      } catch (error) {
        // 55P03 lock_not_available: lock_timeout passed while another process held the lock.
        if ((error as { code?: unknown }).code !== '55P03') throw error;
        throw new Error(`pgTokenStore: the refresh lock of ${handle} was held longer than ${lockWaitMs} ms`, { cause: error });
      }
    },
    async close() {
      await ready.catch(() => undefined);
      await owned?.end?.();
    },
  };
}
