import type { Db } from '@platform/db';

export type Query = <T = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<T[]>;

/**
 * The sender's statements go through the driver (Db.query: `?` placeholders, bigint integers, Date
 * times, the same on both providers), not through Prisma: the hot path is a handful of statements
 * repeated thousands of times, prepared once on SQLite.
 *
 * SQLite: one connection for every statement of the process, and the statements run one after
 * another (a queue), so a transaction (`BEGIN IMMEDIATE` ... `COMMIT`) never interleaves with
 * another statement of the process, and no second connection of the process ever waits on this
 * one's write lock (better-sqlite3 waits synchronously: that would stall the process).
 * PostgreSQL: statements run on the pool; `transaction` is Prisma's interactive transaction.
 */
export interface Sql {
  db: Db;
  query: Query;
  /** SQLite only: `fn` runs inside BEGIN IMMEDIATE ... COMMIT (ROLLBACK on a throw). */
  sqliteTransaction<T>(fn: (query: Query) => Promise<T>): Promise<T>;
}

export function createSql(db: Db): Sql {
  if (db.provider === 'postgresql') {
    return {
      db,
      query: (sql, params = []) => db.query(sql, params),
      sqliteTransaction: () => Promise.reject(new Error('sqliteTransaction on PostgreSQL')),
    };
  }
  let tail: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
  const raw: Query = (sql, params = []) => db.query(sql, params);
  return {
    db,
    query: (sql, params = []) => serial(() => db.query(sql, params)),
    sqliteTransaction: (fn) =>
      serial(async () => {
        await raw('BEGIN IMMEDIATE');
        try {
          const out = await fn(raw);
          await raw('COMMIT');
          return out;
        } catch (error) {
          await raw('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }),
  };
}
