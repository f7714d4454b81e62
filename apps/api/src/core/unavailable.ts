/**
 * Whether an error means the database cannot be reached for now (stopped, restarting, its
 * connections cut), as opposed to a bad query: such a request is answered 503 with Retry-After
 * (issue 15, degraded modes), never a 500. Covers pg's errors (direct queries) and Prisma's
 * (P1001 and kin, through the driver adapter), following `cause` chains.
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
/** Prisma: can't reach, timed out, server closed the connection, pool timeout. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
/** PostgreSQL SQLSTATEs: connection exceptions (08...), shutdown / starting up (57P01-57P03), too many connections. */
const PG_STATE = /^(08\d{3}|57P0[123]|53300)$/;
/** pg's own errors, which carry no code. */
const PG_MESSAGES =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Can't reach database server/;
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections', 'DatabaseUnavailable']);

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const e = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    kind?: unknown;
    meta?: { driverAdapterError?: { cause?: { kind?: unknown } } };
  };
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || PRISMA_CODES.has(e.code) || PG_STATE.test(e.code))) return true;
  if (typeof e.kind === 'string' && ADAPTER_KINDS.has(e.kind)) return true;
  const adapterKind = e.meta?.driverAdapterError?.cause?.kind;
  if (typeof adapterKind === 'string' && ADAPTER_KINDS.has(adapterKind)) return true;
  if (typeof e.message === 'string' && PG_MESSAGES.test(e.message)) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
}
