import Database from 'better-sqlite3';
import { closeSync, openSync } from 'node:fs';
import { loadPg } from './pg-driver';
import { providerOf, sqliteFilePath } from './provider';

/**
 * The key of the PostgreSQL advisory lock every `migrate` takes (issue 15: any number of processes
 * may migrate at once, and each migration is applied once). Any constant works as long as every
 * version of the platform uses the same one.
 */
export const MIGRATION_LOCK_KEY = 7_265_786_001n;

/** How long a migrate waits for another one to finish before giving up (SQLite: busy timeout). */
const SQLITE_LOCK_WAIT_MS = 10 * 60_000;

/**
 * Runs `fn` while holding the database's migration lock: on PostgreSQL a session advisory lock on
 * its own connection (released by the server if this process dies), on SQLite SQLite's own write
 * lock: an exclusive transaction on `<file>-migrate-lock` beside the database (a file of its own, so
 * the schema engine's connections to the database itself are not blocked by it).
 */
export function withMigrationLock<T>(url: string, fn: () => Promise<T>): Promise<T> {
  // Calls in one process take turns first: better-sqlite3 waits for a lock synchronously, so a
  // second call here would block the event loop that the first needs to finish.
  const previous = queue.get(url) ?? Promise.resolve();
  const run = previous.then(() => lockAndRun(url, fn));
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  queue.set(url, settled);
  void settled.then(() => {
    if (queue.get(url) === settled) queue.delete(url);
  });
  return run;
}

const queue = new Map<string, Promise<void>>();

async function lockAndRun<T>(url: string, fn: () => Promise<T>): Promise<T> {
  if (providerOf(url) === 'postgresql') {
    const client = new (loadPg().Client)({ connectionString: url });
    // A lost connection releases the lock; its 'error' must not crash the process meanwhile.
    client.on('error', () => undefined);
    await client.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
      return await fn();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]).catch(() => undefined);
      await client.end().catch(() => undefined);
    }
  }
  const lockFile = `${sqliteFilePath(url)}-migrate-lock`;
  closeSync(openSync(lockFile, 'a', 0o600));
  const lock = new Database(lockFile, { timeout: SQLITE_LOCK_WAIT_MS });
  try {
    lock.exec('BEGIN EXCLUSIVE');
    try {
      return await fn();
    } finally {
      lock.exec('ROLLBACK');
    }
  } finally {
    lock.close();
  }
}
