import type pg from 'pg';
import { loadPg } from './pg-driver';
import { pgConnectionConfig, pgQuery, pgScript, type ScriptPart } from './postgresql';

/**
 * One PostgreSQL connection of its own, with Db.query's conventions (`?` placeholders, bigint
 * integers, Date times): for a transaction of several statements outside Prisma, which a pool
 * cannot hold (each pool query may run on another connection). The webhook sender's claims run on
 * one (docs/webhooks-sender.md). The connection opens on the first query; when it is lost, the
 * query in flight fails and the next one opens a new connection.
 */
export interface PgSession {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Several statements in one round trip (pgScript): each part's rows. */
  script(parts: readonly ScriptPart[]): Promise<unknown[][]>;
  close(): Promise<void>;
}

/** `setup`: statements run once on each new connection (settings of the session, e.g. `SET synchronous_commit = off`). */
export function openPgSession(url: string, setup: readonly string[] = []): PgSession {
  let connection: Promise<{ client: pg.Client; query: ReturnType<typeof pgQuery>; script: ReturnType<typeof pgScript> }> | undefined;
  const open = () => {
    const client = new (loadPg().Client)(pgConnectionConfig(url));
    // Statements are prepared on the connection: a session runs the same few again and again.
    const made = client.connect().then(async () => {
      for (const statement of setup) await client.query(statement);
      return { client, query: pgQuery(client, { prepare: true }), script: pgScript(client) };
    });
    const forget = () => {
      if (connection === made) connection = undefined;
    };
    // A connection that dies between queries ('error' with no query to reject) must not crash the
    // process; the next query opens another.
    client.on('error', forget);
    client.on('end', forget);
    made.catch(forget);
    return made;
  };
  return {
    async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
      const { query } = await (connection ??= open());
      return query<T>(sql, params);
    },
    async script(parts) {
      const { script } = await (connection ??= open());
      return script(parts);
    },
    async close() {
      const current = connection;
      connection = undefined;
      if (current) await (await current.catch(() => undefined))?.client.end().catch(() => undefined);
    },
  };
}
