import { createHash } from 'node:crypto';
import type pg from 'pg';
import { loadPg } from './pg-driver';

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

const parseBigInt = (value: string): bigint => BigInt(value);

/**
 * Per-query parsers, so Prisma's own queries on the shared pool are unaffected. Each parser is one
 * function made once: node-postgres asks for a parser per column of every result, and a closure
 * made on each ask was kept by V8 in its old generation (allocated there from the start): a loop of
 * claims promoted ten times the bytes per scavenge, and the sender ran a full collection, with pauses
 * of several milliseconds, every 3 s at 500 deliveries/s (2026-12-03).
 */
const queryTypes = {
  getTypeParser(oid: number, format?: string): (value: string) => unknown {
    if (format === undefined || format === 'text') {
      switch (oid) {
        case OID.int8:
        case OID.int2:
        case OID.int4:
          return parseBigInt;
        case OID.timestamp:
          return parseUtcTimestamp;
        default:
          break;
      }
    }
    return loadPg().types.getTypeParser(oid, (format ?? 'text') as 'text') as (value: string) => unknown;
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
  // JIT off: every statement of the platform is a short one, and the planner's estimate for some
  // (the sender's claim, with its correlated subqueries) passes jit_above_cost, where compiling took
  // 30-50 ms per run, ten times the statement (docs/webhooks-sender.md, "JIT").
  const base = { connectionString: url, connectionTimeoutMillis: 5000 };
  return url.includes('options=') ? base : { ...base, options: '-c TimeZone=UTC -c jit=off' };
}

export function createPgPool(url: string): pg.Pool {
  const pool = new (loadPg().Pool)(pgConnectionConfig(url));
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
 * Db.query's `?` texts in PostgreSQL's form, each with the name it is prepared under (a digest of
 * the text, so two texts never share one), for at most `limit` texts, kept so that a statement run
 * again is neither converted nor digested again (converting the sender's claim statement, about
 * 3 kB, and looking up a name by the text built char by char cost about 100 µs a claim on a slow
 * machine); beyond `limit` a text is converted on every call and runs unnamed. `convert`: the
 * conversion (none for texts already in PostgreSQL's form).
 */
function preparedStatements(
  limit: number,
  prefix = 'platform',
  convert: (sql: string) => string = toPgPlaceholders,
): (sql: string) => { text: string; name: string | undefined } {
  const known = new Map<string, { text: string; name: string }>();
  return (sql) => {
    const found = known.get(sql);
    if (found !== undefined) return found;
    const text = convert(sql);
    if (known.size >= limit) return { text, name: undefined };
    const statement = { text, name: `${prefix}_${createHash('sha256').update(text).digest('hex').slice(0, 24)}` };
    known.set(sql, statement);
    return statement;
  };
}

/**
 * Bulk statement texts a process prepares at most (bulk.ts prepares only full chunks, a few texts
 * per table): each holds about 1 MB (200 rows' parse tree and plan) on every pooled connection
 * that ran it, so at most about 16 MB a connection.
 */
const BULK_PREPARED_LIMIT = 16;

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
  const statementOf = preparedStatements(PREPARED_LIMIT);
  return async <T>(sql: string, params: unknown[], prepare = options.prepare): Promise<T[]> => {
    // Only statements run prepared are kept (a text built with its values, run once, takes no place).
    // A statement list without parameters goes as a simple query (it cannot be prepared).
    const statement = prepare && params.length > 0 ? statementOf(sql) : { text: toPgPlaceholders(sql), name: undefined };
    const text = statement.text;
    const values = params.map(toPgParam);
    const name = statement.name;
    const named = name === undefined ? {} : { name };
    const result = await pool.query({ text, values, types: queryTypes, ...named });
    return result.rows as T[];
  };
}

/** One statement of a script (pgScript): a text without parameters as it is, or a statement with its parameters. */
export type ScriptPart = string | { sql: string; params: unknown[] };

/** node-postgres's conversion of a parameter to its text (not in its published types). */
interface PgUtils {
  utils: { prepareValue(value: unknown): unknown };
}

/** The messages of the extended protocol that pgScript writes (node-postgres's connection; not in its published types). */
interface PgWire {
  close(message: { type: 'S'; name: string }): void;
  parse(query: { text: string; name: string; types: number[] }): void;
  bind(config: { statement: string; values: unknown[]; valueMapper: (value: unknown) => unknown }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(config: { portal: string }): void;
  sync(): void;
}

/** One statement of a script on the wire: its text in PostgreSQL's form, its prepared name ('' for the unnamed statement), its parameters. */
interface ScriptStep {
  text: string;
  name: string;
  values: unknown[];
}

/**
 * Several statements in one round trip on one client: the extended protocol's pipeline, which
 * node-postgres does not offer for several statements (it sends one and waits for its answer).
 * Each statement is parsed, bound to its parameters and executed in turn, and one Sync ends them,
 * so the server runs them as one transaction, as it runs a simple query of several statements:
 * it commits at the Sync (unless a part opened a transaction block with BEGIN, which then lasts
 * until a later part or script ends it), or stops at the first failing part, skipping the rest. Each
 * statement takes its own snapshot (READ COMMITTED): a lock taken by one part is held until the
 * transaction ends, and the parts after it see every transaction committed before it was granted.
 * A part with parameters is a named prepared statement of the client (parsed once per client and
 * text, for PREPARED_LIMIT texts; beyond them parsed on every run), one without is parsed each run.
 * node-postgres's Query reads the answers (a result per statement, as for a simple query); this
 * writes the messages. Returns each part's rows.
 *
 * It replaced a simple query of `EXECUTE name(literals)` parts (2026-12-03): for the sender's lone
 * claim (27 parameters) the pipeline measured 0.39 ms a round trip in a loop against 0.44 ms, and that
 * simple query, read with the per-query parsers below, made V8 keep a megabyte a scavenge in its old
 * generation (a full collection every 3 s in the sender at 500 deliveries/s), which the pipeline does
 * not (bench/webhooks; docs/performance.md).
 */
export function pgScript(client: pg.ClientBase) {
  const driver = loadPg();
  const statementOf = preparedStatements(PREPARED_LIMIT, 'script');
  // Names this client has parsed, known once a script that parsed them has run to its end. After a
  // failure the server may or may not have parsed the new names of that script (a Parse after the
  // failing part is skipped): each is closed before it is parsed again (a Close of a name the server
  // does not have is no error).
  const parsed = new Set<string>();
  const prepareValue = (driver as unknown as PgUtils).utils.prepareValue;
  class ScriptQuery extends driver.Query {
    constructor(
      private readonly steps: readonly ScriptStep[],
      callback: (error: Error | null, result: pg.QueryResult | pg.QueryResult[]) => void,
    ) {
      super({ text: 'script', types: queryTypes, callback } as unknown as pg.QueryConfig);
    }

    /** Always written by prepare() below (node-postgres corks the socket around it: one write). */
    requiresPreparation(): boolean {
      return true;
    }

    prepare(connection: PgWire): void {
      for (const step of this.steps) {
        if (step.name === '' || !parsed.has(step.name)) {
          if (step.name !== '') connection.close({ type: 'S', name: step.name });
          connection.parse({ text: step.text, name: step.name, types: [] });
        }
        connection.bind({ statement: step.name, values: step.values, valueMapper: prepareValue });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '' });
      }
      connection.sync();
    }
  }
  return async (parts: readonly ScriptPart[]): Promise<unknown[][]> => {
    const steps = parts.map((part): ScriptStep => {
      if (typeof part === 'string' || part.params.length === 0) {
        const sql = typeof part === 'string' ? part : part.sql;
        return { text: typeof part === 'string' ? sql : toPgPlaceholders(sql), name: '', values: [] };
      }
      const { text, name } = statementOf(part.sql);
      return { text, name: name ?? '', values: part.params.map(toPgParam) };
    });
    const result = await new Promise<pg.QueryResult | pg.QueryResult[]>((resolve, reject) => {
      void client.query(new ScriptQuery(steps, (error, out) => (error ? reject(error) : resolve(out))) as unknown as pg.QueryConfig);
    });
    // Every part ran, so every name was parsed (a prepared statement outlives the transaction).
    for (const step of steps) if (step.name !== '') parsed.add(step.name);
    const results = Array.isArray(result) ? result : [result];
    return results.map((r) => r.rows as unknown[]);
  };
}

/** The driver adapter's kinds of error for the SQLSTATEs a bulk write can meet, as adapter-pg names them. */
const PG_ADAPTER_KINDS: Record<string, string> = {
  '23505': 'UniqueConstraintViolation',
  '23503': 'ForeignKeyConstraintViolation',
  '23502': 'NullConstraintViolation',
  '40001': 'TransactionWriteConflict',
  '40P01': 'TransactionWriteConflict',
};

/**
 * A server's refusal of a statement run beside Prisma, in the shape Prisma gives a raw statement's
 * failure through adapter-pg (P2010 with the adapter's kind), so callers read both paths alike.
 * Anything else (a connection lost, a timeout) is thrown as the driver threw it: the API reads
 * those as "database unavailable" by their codes and messages.
 */
function asRawPgQueryError(error: unknown): unknown {
  const e = error as { code?: unknown; severity?: unknown; message?: unknown } | null;
  if (typeof e?.code !== 'string' || typeof e.severity !== 'string' || !/^[0-9A-Z]{5}$/.test(e.code)) return error;
  return Object.assign(new Error(`Raw query failed: ${String(e.message)}`, { cause: error }), {
    code: 'P2010',
    meta: { driverAdapterError: { cause: { kind: PG_ADAPTER_KINDS[e.code] ?? 'postgres', originalCode: e.code } } },
  });
}

/** A Prisma transaction's own pooled connection, for bulk statements inside it (bulk.ts). */
export interface PgTransactionConnection {
  /**
   * Runs one statement (`$1, $2, ...` placeholders; parameters as Db.query takes them); returns the
   * rows changed. `prepare`: as a named prepared statement of the connection (parsed and planned
   * once per connection), for the first BULK_PREPARED_LIMIT texts of the process.
   */
  run(sql: string, params: readonly unknown[], options?: { prepare?: boolean }): Promise<number>;
  /** Runs one statement and returns its rows, as the driver reads them (no Db.query conversions). */
  rows<T>(sql: string, params: readonly unknown[]): Promise<T[]>;
}

/**
 * Finds the pooled connection a Prisma transaction runs on: adapter-pg checks one connection out of
 * `pool` for each transaction and keeps it until commit or rollback, so among the connections
 * checked out now exactly one has the transaction's server process id (`pg_backend_pid()`, asked
 * once per transaction through the transaction itself). Statements run there are part of the
 * transaction, without the ORM's per-parameter work for raw statements (it serialises every value
 * to JSON and parses it back: about a fifth of an import's CPU on PostgreSQL, 2026-11-27).
 * Undefined when no checked-out connection, or more than one, has that process id (the caller then goes through Prisma).
 */
export function pgTransactionConnections(pool: pg.Pool) {
  // Each connection checked out now, with the count of its check-outs: a statement whose
  // transaction has ended (Prisma's timeout rolled it back) fails instead of joining the next one.
  const checkedOut = new Map<pg.PoolClient, number>();
  const checkouts = new WeakMap<pg.PoolClient, number>();
  pool.on('acquire', (client) => {
    const n = (checkouts.get(client) ?? 0) + 1;
    checkouts.set(client, n);
    checkedOut.set(client, n);
  });
  pool.on('release', (_error, client) => checkedOut.delete(client));
  pool.on('remove', (client) => checkedOut.delete(client as pg.PoolClient));
  const found = new WeakMap<object, Promise<PgTransactionConnection | undefined>>();
  const statementOf = preparedStatements(BULK_PREPARED_LIMIT, 'platform', (sql) => sql);
  const find = async (tx: { $queryRawUnsafe(sql: string): Promise<unknown> }): Promise<PgTransactionConnection | undefined> => {
    const rows = (await tx.$queryRawUnsafe('SELECT pg_backend_pid() AS pid')) as { pid: number }[];
    const pid = Number(rows[0]?.pid);
    // The transaction's own connection is checked out, so it is among these. Two matches can only
    // be two servers (a pool over several hosts) with equal process ids: then go through Prisma.
    const matches = [...checkedOut].filter(([c]) => (c as unknown as { processID?: number }).processID === pid);
    if (matches.length !== 1) return undefined;
    const [client, checkout] = matches[0]!;
    const query = async (sql: string, params: readonly unknown[], prepare = false) => {
      if (checkedOut.get(client) !== checkout) throw new Error('Transaction already closed: its connection went back to the pool');
      const name = prepare && params.length > 0 ? statementOf(sql).name : undefined;
      try {
        return await client.query({ text: sql, values: params.map(toPgParam), ...(name === undefined ? {} : { name }) });
      } catch (error) {
        throw asRawPgQueryError(error);
      }
    };
    return {
      run: async (sql, params, options) => (await query(sql, params, options?.prepare)).rowCount ?? 0,
      rows: async <T>(sql: string, params: readonly unknown[]) => (await query(sql, params)).rows as T[],
    };
  };
  return (tx: { $queryRawUnsafe(sql: string): Promise<unknown> }): Promise<PgTransactionConnection | undefined> => {
    let connection = found.get(tx);
    if (connection === undefined) found.set(tx, (connection = find(tx)));
    return connection;
  };
}
