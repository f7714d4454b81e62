import { chmodSync, existsSync } from 'node:fs';
import type { StoredToken, TokenStore } from '@platform/sdk';
import { checkTableName, tokenFromRow, type TokenRow } from './token-rows';

interface Statement {
  get(...params: unknown[]): unknown;
  run(...params: unknown[]): unknown;
}
interface Database {
  exec(sql: string): unknown;
  prepare(sql: string): Statement;
  close(): unknown;
}

export interface SqliteTokenStoreOptions {
  /** The database file (created when missing, readable by its owner only). */
  filename: string;
  /** Default `platform_sdk_tokens`. */
  table?: string;
}

/**
 * A `TokenStore` in a SQLite file through better-sqlite3, an optional peer dependency: install it
 * beside the SDK (`npm i better-sqlite3`) to use this entry; the core needs no native code. Tokens
 * are bearer credentials: the file is made readable by its owner only.
 */
export function sqliteTokenStore(options: SqliteTokenStoreOptions): TokenStore & { close(): Promise<void> } {
  const table = checkTableName('sqliteTokenStore', options.table ?? 'platform_sdk_tokens');

  // Loaded on first use, so importing this entry without the peer installed costs nothing and
  // using it fails with a message that says what to install.
  const ready = (async () => {
    let BetterSqlite: new (filename: string) => Database;
    try {
      const loaded = (await import('better-sqlite3')) as unknown as { default?: unknown };
      BetterSqlite = (loaded.default ?? loaded) as typeof BetterSqlite;
    } catch {
      throw new Error('@platform/sdk/sqlite needs the better-sqlite3 package: npm install better-sqlite3');
    }
    const isNew = options.filename !== ':memory:' && !existsSync(options.filename);
    const db = new BetterSqlite(options.filename);
    if (isNew) chmodSync(options.filename, 0o600);
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${table} (handle TEXT PRIMARY KEY, access_token TEXT NOT NULL, expires_at TEXT NOT NULL, scope TEXT NOT NULL, updated_at TEXT NOT NULL)`,
    );
    return {
      db,
      select: db.prepare(`SELECT handle, access_token, expires_at, scope FROM ${table} WHERE handle = ?`),
      upsert: db.prepare(
        `INSERT INTO ${table} (handle, access_token, expires_at, scope, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(handle) DO UPDATE SET access_token = excluded.access_token, expires_at = excluded.expires_at, scope = excluded.scope, updated_at = excluded.updated_at`,
      ),
      remove: db.prepare(`DELETE FROM ${table} WHERE handle = ?`),
    };
  })();
  // Nobody may be waiting yet: the failure is reported by the first call instead.
  ready.catch(() => undefined);

  return {
    async get(handle) {
      const row = (await ready).select.get(handle) as TokenRow | undefined;
      return row ? tokenFromRow(row) : undefined;
    },
    async set(token: StoredToken) {
      (await ready).upsert.run(token.handle, token.accessToken, token.expiresAt, token.scope, new Date().toISOString());
    },
    async delete(handle) {
      (await ready).remove.run(handle);
    },
    async close() {
      (await ready).db.close();
    },
  };
}
