import type { PrismaPg } from '@prisma/adapter-pg';
import { DriverAdapterError, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type pg from 'pg';
import { pgConnectionConfig } from './postgresql';

/**
 * How long a PostgreSQL migration waits for a lock before giving up (decisions §12.8: "each with a
 * lock timeout"). A statement waiting for a table's lock holds back every later statement on that
 * table, the running release's included, for as long as it waits: a migration behind a long
 * transaction must give up quickly, not stall the service. Then the runner tries again
 * (MIGRATE_LOCK_ATTEMPTS).
 */
export const DEFAULT_MIGRATE_LOCK_TIMEOUT_MS = 5000;
export const DEFAULT_MIGRATE_LOCK_ATTEMPTS = 5;

/** SQLSTATE lock_not_available: a statement gave up on lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

/** What the last migration script did (read by the runner after the engine reports a failure). */
export interface ScriptOutcome {
  lockTimedOut: boolean;
}

/**
 * The schema engine's PostgreSQL connection, with each migration script run as ONE transaction
 * under `SET LOCAL lock_timeout`. Prisma's pg adapter splits a script at every semicolon and runs
 * the pieces on its pool one by one, each committing on its own: a migration that failed half-way
 * stayed half applied (the recorded failure then needs a hand to resolve), a `DO` or function body
 * had to spell its semicolons `\003B`, and a lock timeout set by the script would hold for one
 * piece on one pooled connection only. Here the script goes whole, as one simple query, on one
 * connection inside BEGIN ... COMMIT: it applies entirely or not at all, so a migration that timed
 * out on a lock can simply be run again. (Not possible in a migration, as in any transaction:
 * `CREATE INDEX CONCURRENTLY`, or a `BEGIN`/`COMMIT` of its own.)
 */
export function transactionalPgFactory(url: string, lockTimeoutMs: number, outcome: ScriptOutcome): SqlMigrationAwareDriverAdapterFactory {
  // Loaded on first use, as in client.ts: a start on SQLite never needs it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  const { PrismaPg: Adapter } = require('@prisma/adapter-pg') as { PrismaPg: typeof PrismaPg };
  const base = new Adapter(pgConnectionConfig(url));
  return {
    provider: base.provider,
    adapterName: base.adapterName,
    async connect() {
      const adapter = await base.connect();
      const pool = adapter.underlyingDriver() as pg.Pool;
      adapter.executeScript = async (script: string) => {
        outcome.lockTimedOut = false;
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await client.query(`SET LOCAL lock_timeout = ${Math.round(lockTimeoutMs)}`);
          await client.query(script);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          outcome.lockTimedOut = (error as { code?: unknown }).code === LOCK_NOT_AVAILABLE;
          throw asAdapterError(error);
        } finally {
          client.release();
        }
      };
      return adapter;
    },
    connectToShadowDb: () => base.connectToShadowDb(),
  };
}

/** A PostgreSQL error as the pg adapter reports it to the engine (which then names it in its message). */
function asAdapterError(error: unknown): unknown {
  const e = error as { code?: string; severity?: string; message?: string; detail?: string; column?: string; hint?: string };
  if (typeof e?.message !== 'string') return error;
  return new DriverAdapterError({
    kind: 'postgres',
    code: e.code ?? 'N/A',
    severity: e.severity ?? 'N/A',
    message: e.message,
    detail: e.detail,
    column: e.column,
    hint: e.hint,
  });
}
