import { describe, expect, it } from 'vitest';
import { isConflict, isUniqueViolation, prismaCode, storage } from './prisma-errors';

/** A raw statement's failure as Prisma 6 reports it through a driver adapter (P2010). */
const rawFailure = (kind: string, originalCode: string) =>
  Object.assign(new Error('Raw query failed'), {
    code: 'P2010',
    meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { originalCode, kind } } },
  });

describe('prismaCode', () => {
  it("reads a raw statement's refusal as the ORM's code for it (insertRows, updateRows)", () => {
    expect(prismaCode(rawFailure('UniqueConstraintViolation', 'SQLITE_CONSTRAINT_UNIQUE'))).toBe('P2002');
    expect(prismaCode(rawFailure('UniqueConstraintViolation', '23505'))).toBe('P2002');
    expect(prismaCode(rawFailure('ForeignKeyConstraintViolation', '23503'))).toBe('P2003');
    expect(prismaCode(rawFailure('TransactionWriteConflict', '40001'))).toBe('P2034');
    expect(isUniqueViolation(rawFailure('UniqueConstraintViolation', '23505'))).toBe(true);
  });

  it('leaves every other failure as it is', () => {
    expect(prismaCode(rawFailure('SyntaxError', '42601'))).toBe('P2010');
    expect(prismaCode(Object.assign(new Error('x'), { code: 'P2010' }))).toBe('P2010');
    expect(prismaCode(Object.assign(new Error('x'), { code: 'P2002' }))).toBe('P2002');
    expect(prismaCode(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBeUndefined();
    expect(prismaCode('P2002')).toBeUndefined();
  });

  it('makes a raw unique violation a StorageConflict the services retry on', async () => {
    const error = await storage(Promise.reject(rawFailure('UniqueConstraintViolation', '23505'))).catch((e: unknown) => e);
    expect(isConflict(error, 'unique')).toBe(true);
  });
});
