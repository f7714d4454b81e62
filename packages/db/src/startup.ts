import { loadPg } from './pg-driver';
import { providerOf, redactUrl } from './provider';

/** Milliseconds a start waits for PostgreSQL to answer before calling it unreachable. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * One line saying why a database cannot be used (issue 15: bad configuration gives one clear line,
 * never a stack trace). Knows the usual causes by their codes; anything else keeps its first line.
 */
export function describeDatabaseError(error: unknown, url: string): string {
  const where = providerOf(url) === 'postgresql' ? `PostgreSQL at ${redactUrl(url)}` : `the SQLite database ${url}`;
  const e = (error ?? {}) as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const message = typeof e.message === 'string' && e.message !== '' ? e.message.split('\n')[0]! : String(error);
  switch (code) {
    case 'ECONNREFUSED':
      return `DATABASE_URL: cannot connect to ${where}: connection refused (is the server running, and on that port?)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `DATABASE_URL: cannot connect to ${where}: host name not found`;
    case 'ETIMEDOUT':
      return `DATABASE_URL: cannot connect to ${where}: no answer within ${CONNECT_TIMEOUT_MS / 1000} s`;
    case '28P01':
    case '28000':
      return `DATABASE_URL: ${where} refused the credentials: ${message}`;
    case '3D000':
      return `DATABASE_URL: ${where}: ${message} (create it first)`;
    default:
      return `DATABASE_URL: ${where} cannot be used: ${message}`;
  }
}

/**
 * Checks that PostgreSQL answers, so a start against a wrong or stopped server fails at once with
 * `describeDatabaseError`'s line (the schema engine's own errors are long and vague). SQLite needs no
 * check: opening the file reports its own problem.
 */
export async function probeDatabase(url: string): Promise<void> {
  if (providerOf(url) !== 'postgresql') return;
  const client = new (loadPg().Client)({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // pg reports its own connect timeout without a code.
    const timedOut = code === undefined && /timeout/i.test((error as Error).message ?? '');
    throw new DatabaseUnavailableError(describeDatabaseError(timedOut ? { code: 'ETIMEDOUT' } : error, url));
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A start that cannot go on, with the one line to print. */
export class DatabaseUnavailableError extends Error {}
