import { createHash } from 'node:crypto';
import pg from 'pg';

/**
 * `?` placeholders to `$1, $2, ...`, leaving `?` inside quoted strings, quoted identifiers and
 * comments alone. (PostgreSQL's own `?` jsonb operators are unavailable through Db.query.)
 */
export function toPgPlaceholders(sql: string): string {
  let out = '';
  let n = 0;
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === "'" || ch === '"') {
      const end = sql.indexOf(ch, i + 1);
      const stop = end === -1 ? sql.length : end + 1;
      out += sql.slice(i, stop);
      i = stop;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      const stop = end === -1 ? sql.length : end + 2;
      out += sql.slice(i, stop);
      i = stop;
    } else if (ch === '?') {
      out += `$${++n}`;
      i++;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

const OID = { bool: 16, int8: 20, int2: 21, int4: 23, timestamp: 1114, timestamptz: 1184 } as const;

/** `TIMESTAMP(3)` (Prisma's DateTime, no time zone) holds UTC: read it as UTC, not local time. */
function parseUtcTimestamp(text: string): Date {
  return new Date(text.replace(' ', 'T') + 'Z');
}

/** Per-query parsers, so Prisma's own queries on the shared pool are unaffected. */
const queryTypes = {
  getTypeParser(oid: number, format?: string): (value: string) => unknown {
    if (format === undefined || format === 'text') {
      switch (oid) {
        case OID.int8:
        case OID.int2:
        case OID.int4:
          return (value: string) => BigInt(value);
        case OID.timestamp:
          return parseUtcTimestamp;
        default:
          break;
      }
    }
    return pg.types.getTypeParser(oid, (format ?? 'text') as 'text') as (value: string) => unknown;
  },
};

function toPgParam(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  // ISO 8601 in UTC: a TIMESTAMP column ignores the Z and keeps the UTC wall time, a TIMESTAMPTZ
  // honours it. (pg's default would send local time with an offset, which TIMESTAMP drops.)
  if (value instanceof Date) return value.toISOString();
  return value;
}

/**
 * DateTime columns are timestamps without time zone holding UTC; a UTC session makes
 * CURRENT_TIMESTAMP defaults and now() agree with them.
 */
export function pgConnectionConfig(url: string): pg.ClientConfig {
  // A server that does not answer (host gone, network cut) fails a connect after 5 s instead of
  // holding the request for ever; a stopped server refuses at once anyway.
  const base = { connectionString: url, connectionTimeoutMillis: 5000 };
  return url.includes('options=') ? base : { ...base, options: '-c TimeZone=UTC' };
}

export function createPgPool(url: string): pg.Pool {
  const pool = new pg.Pool(pgConnectionConfig(url));
  // An idle client losing its connection (server restart) emits 'error' on the pool, which would
  // crash the process if unhandled; the pool drops that client and the next query reconnects.
  pool.on('error', (error) => {
    console.error(`@platform/db: idle PostgreSQL connection lost: ${error.message}`);
  });
  return pool;
}

/** Statement texts a process prepares at most (beyond it they run unnamed): a bound on the server's memory per connection. */
const PREPARED_LIMIT = 500;

/**
 * Db.query's conventions on a pool, or on one client (a session of its own: pg-session.ts). A
 * statement run with `prepare` (the session's default; on the pool only where the caller asks)
 * becomes a named prepared statement of the connection it runs on (node-postgres prepares it on a
 * pooled connection the first time that connection sees the name), so the server parses it once
 * per connection rather than on every call: on the listing's token lookup (four tables joined) that
 * was most of the statement's server time. Only for statements whose plan does not depend on their
 * values: after five runs PostgreSQL may keep one generic plan, and for the sender's batch update
 * over `unnest` of array parameters that plan took 70-80 ms instead of 1 (bench/webhooks). The name
 * is a digest of the text, so two texts never share one, whichever pgQuery prepared them.
 */
export function pgQuery(pool: pg.Pool | pg.ClientBase, options: { prepare?: boolean } = {}) {
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < PREPARED_LIMIT) {
      names.set(text, (name = `platform_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`));
    }
    return name;
  };
  return async <T>(sql: string, params: unknown[], prepare = options.prepare): Promise<T[]> => {
    const text = toPgPlaceholders(sql);
    const values = params.map(toPgParam);
    // A statement list without parameters goes as a simple query (it cannot be prepared).
    const name = prepare && values.length > 0 ? nameOf(text) : undefined;
    const named = name === undefined ? {} : { name };
    const result = await pool.query({ text, values, types: queryTypes, ...named });
    return result.rows as T[];
  };
}
