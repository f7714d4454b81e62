import { describe, expect, it } from 'vitest';
import { toErrorResponse } from '../http/errors.filter';
import { isDatabaseUnavailable } from './unavailable';

// Issue 15, issue 43 finding 7: the errors the drivers raise while PostgreSQL cannot serve (shapes
// as pg and Prisma's pg adapter raise them, the Prisma ones copied from the cluster's logs of a
// stop and start under load) are a 503, and a bad query stays what it was.
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'FATAL' });
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, syscall: 'connect', errno: -111 });
/** Prisma's known request error carrying the adapter's DriverAdapterError in `meta`. */
const prismaError = (code: string, message: string, cause?: Record<string, unknown>) =>
  Object.assign(new Error(message), {
    name: 'PrismaClientKnownRequestError',
    code,
    meta: cause ? { driverAdapterError: Object.assign(new Error('DriverAdapterError'), { name: 'DriverAdapterError', cause }) } : {},
  });
/** Prisma 7's P2028 for a transaction past its timeout (meta as the pg adapter's client sets it). */
const expired = (operation: string) =>
  Object.assign(new Error(`Transaction API error: A ${operation} cannot be executed on an expired transaction.`), {
    name: 'PrismaClientKnownRequestError',
    code: 'P2028',
    meta: { operation, timeout: 5000, timeTaken: 5012 },
  });
const fromServer = (code: string, message: string) => ({
  originalCode: code,
  originalMessage: message,
  kind: 'postgres',
  code,
  severity: 'FATAL',
  message,
});

const UNAVAILABLE: [string, unknown][] = [
  ['pg: connection refused', socketError('ECONNREFUSED')],
  ['pg: connection reset', socketError('ECONNRESET')],
  ['pg: connect timed out', socketError('ETIMEDOUT')],
  ['pg: 57P01 admin shutdown (a fast shutdown cuts the query)', pgError('57P01', 'terminating connection due to administrator command')],
  ['pg: 57P02 crash shutdown', pgError('57P02', 'terminating connection because of crash of another server process')],
  ['pg: 57P03 shutting down', pgError('57P03', 'the database system is shutting down')],
  ['pg: 57P03 starting up', pgError('57P03', 'the database system is starting up')],
  ['pg: 08006 connection failure', pgError('08006', 'connection failure')],
  ['pg: 08P01 protocol violation', pgError('08P01', 'protocol violation')],
  ['pg: 53300 too many connections', pgError('53300', 'sorry, too many clients already')],
  ['pg: connection lost', new Error('Connection terminated unexpectedly')],
  ['pg: connect timeout', new Error('Connection terminated due to connection timeout')],
  ['pg-pool: no connection in time', new Error('timeout exceeded when trying to connect')],
  ['pg: client broken', new Error('Client has encountered a connection error and is not queryable')],
  ['Prisma P1001', prismaError('P1001', "Can't reach database server at 127.0.0.1:5432", { kind: 'DatabaseNotReachable' })],
  ['Prisma P1017 server closed the connection', prismaError('P1017', 'Server has closed the connection.')],
  ['Prisma P2024 pool timeout', prismaError('P2024', 'Timed out fetching a new connection from the connection pool.')],
  ['Prisma P2028 no transaction in time', prismaError('P2028', 'Transaction API error: Unable to start a transaction in the given time.')],
  ['Prisma P2028 a query on a transaction past its timeout (rolled back)', expired('query')],
  ['Prisma P2028 a commit of a transaction past its timeout (rolled back)', expired('commit')],
  [
    'Prisma P2039, 57P03 shutting down',
    prismaError('P2039', 'Database error. Code: `57P03`.', fromServer('57P03', 'the database system is shutting down')),
  ],
  [
    'Prisma P2039, 57P03 starting up',
    prismaError('P2039', 'Database error. Code: `57P03`.', fromServer('57P03', 'the database system is starting up')),
  ],
  [
    'Prisma P2010 (raw), 57P01',
    prismaError('P2010', 'Raw query failed. Code: `57P01`.', fromServer('57P01', 'terminating connection due to administrator command')),
  ],
  ['bulk write P2010, 57P01 as originalCode only', prismaError('P2010', 'Raw query failed', { kind: 'postgres', originalCode: '57P01' })],
  [
    'adapter error thrown bare',
    Object.assign(new Error('DriverAdapterError'), { cause: fromServer('57P03', 'the database system is starting up') }),
  ],
  ['adapter ConnectionClosed', prismaError('P2039', 'Database error', { kind: 'ConnectionClosed' })],
  ['a cause chain', new Error('outer', { cause: socketError('ECONNRESET') })],
];

const OTHER: [string, unknown][] = [
  ['Prisma P2002 unique', prismaError('P2002', 'Unique constraint failed', { kind: 'UniqueConstraintViolation' })],
  ['Prisma P2039, 42P01 table missing', prismaError('P2039', 'Database error', fromServer('42P01', 'relation "x" does not exist'))],
  ['Prisma P2010, 23505 unique', prismaError('P2010', 'Raw query failed', { kind: 'UniqueConstraintViolation', originalCode: '23505' })],
  ['Prisma P2028 transaction closed', prismaError('P2028', 'Transaction API error: Transaction already closed.')],
  ['pg: 42601 syntax error', pgError('42601', 'syntax error at or near "x"')],
  ['pg: 57014 statement timeout', pgError('57014', 'canceling statement due to statement timeout')],
  ['a plain error', new Error('boom')],
  ['undefined', undefined],
  ['a string', 'ECONNREFUSED'],
];

describe('isDatabaseUnavailable', () => {
  it.each(UNAVAILABLE)('%s: unavailable', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each(OTHER)('%s: not unavailable', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('makes the answer 503 instead of 500', () => {
    for (const [, error] of UNAVAILABLE) {
      expect(toErrorResponse(error)).toEqual({ status: 503, message: 'The database is unavailable; try again shortly' });
    }
    expect(toErrorResponse(new Error('boom')).status).toBe(500);
  });
});
