/**
 * Whether an error means the database cannot serve now (stopped, shutting down, starting up, its
 * connections cut or refused, no connection to be had in time), as opposed to a bad query: such a
 * request is answered 503 with Retry-After (issue 15 degraded modes; issue 43 finding 7), never a
 * 500. Covers pg's errors (direct queries) and Prisma's through the pg driver adapter: its own
 * codes (P1001 and kin), and a server's SQLSTATE carried in `meta.driverAdapterError` (P2039
 * "Database error", P2010 "Raw query failed": `57P03` while PostgreSQL shuts down or starts up,
 * `57P01` for the queries a shutdown cuts). Follows `cause` chains.
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
/** Prisma: can't reach, timed out, server closed the connection, pool timeout. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
/**
 * PostgreSQL SQLSTATEs: connection exceptions (08...), admin / crash shutdown and "cannot connect
 * now" (57P01-57P03: shutting down, starting up, in recovery), too many connections (53300).
 */
const PG_STATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;
/** pg's and Prisma's errors that carry no code for it: connection lost, no connection from the pool or for a transaction in time. */
const MESSAGES =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Can't reach database server|Unable to start a transaction in the given time/;
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections', 'DatabaseUnavailable']);

/**
 * Prisma's P2028 for a transaction that outlived its timeout (`meta.timeout`, `meta.timeTaken`): it
 * was rolled back, nothing of it is written, so the request may be sent again (a database slowed
 * by load, or a lock held longer than the timeout). A P2028 without the times (a transaction used
 * after it closed) is a bug, and stays a 500.
 */
const expiredTransaction = (code: unknown, meta: unknown): boolean =>
  code === 'P2028' && typeof meta === 'object' && meta !== null && typeof (meta as { timeout?: unknown }).timeout === 'number';

const unavailableCode = (code: unknown): boolean =>
  typeof code === 'string' && (NETWORK_CODES.has(code) || PRISMA_CODES.has(code) || PG_STATE.test(code));

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const e = error as {
    code?: unknown;
    /** The adapter's copy of the server's SQLSTATE (`kind: 'postgres'`, and the bulk writes' P2010). */
    originalCode?: unknown;
    message?: unknown;
    cause?: unknown;
    kind?: unknown;
    meta?: { driverAdapterError?: unknown };
  };
  if (unavailableCode(e.code) || unavailableCode(e.originalCode) || expiredTransaction(e.code, e.meta)) return true;
  if (typeof e.kind === 'string' && ADAPTER_KINDS.has(e.kind)) return true;
  if (typeof e.message === 'string' && MESSAGES.test(e.message)) return true;
  return isDatabaseUnavailable(e.meta?.driverAdapterError, depth + 1) || isDatabaseUnavailable(e.cause, depth + 1);
}
