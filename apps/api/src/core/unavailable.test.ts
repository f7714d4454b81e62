import { describe, expect, it } from 'vitest';
import { toErrorResponse } from '../http/errors.filter';
import { isDatabaseUnavailable } from './unavailable';

// Issue 15: the errors the drivers raise while PostgreSQL is down (shapes seen from pg and from
// Prisma's pg adapter against a stopped server) are a 503, and a bad query stays what it was.
describe('isDatabaseUnavailable', () => {
  it('knows a refused connection of pg, Prisma P1001 and a server shutting down', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    const p1001 = Object.assign(new Error("Can't reach database server at 127.0.0.1:5432"), {
      code: 'P1001',
      meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { kind: 'DatabaseNotReachable' } } },
    });
    expect(isDatabaseUnavailable(p1001)).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(
      true,
    );
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('outer', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }))).toBe(true);
  });

  it('leaves other errors alone', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('Unique constraint failed'), { code: 'P2002' }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });

  it('makes the answer 503 instead of 500', () => {
    expect(toErrorResponse(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toEqual({
      status: 503,
      message: 'The database is unavailable; try again shortly',
    });
    expect(toErrorResponse(new Error('boom')).status).toBe(500);
  });
});
