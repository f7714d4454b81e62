/**
 * What a raw statement's failure (P2010, "Raw query failed") was, by the driver adapter's kind of
 * error: the multi-row writes of @platform/db (insertRows, updateRows) run as raw statements, and
 * their refusals mean what the ORM's P2002/P2003/P2034 mean.
 */
const RAW_KINDS: Record<string, string> = {
  UniqueConstraintViolation: 'P2002',
  ForeignKeyConstraintViolation: 'P2003',
  TransactionWriteConflict: 'P2034',
};

/** Prisma's known request errors by code (P2002 unique), without importing either generated client. */
export function prismaCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof (error as { code: unknown }).code === 'string') {
    const code = (error as { code: string }).code;
    if (code === 'P2010') {
      const kind = (error as { meta?: { driverAdapterError?: { cause?: { kind?: unknown } } } }).meta?.driverAdapterError?.cause?.kind;
      return (typeof kind === 'string' && RAW_KINDS[kind]) || code;
    }
    return /^P\d{4}$/.test(code) ? code : undefined;
  }
  return undefined;
}

export const isUniqueViolation = (error: unknown): boolean => prismaCode(error) === 'P2002';

/**
 * What the storage refused, in words the services decide on; repositories translate Prisma's codes
 * into these (`storage`), so no service reads an ORM's error codes.
 */
export class StorageConflict extends Error {
  constructor(
    /** `unique`: a unique index holds another row; `reference`: a row it points at is gone; `retry`: a write conflict, try again. */
    readonly kind: 'unique' | 'reference' | 'retry',
    options?: { cause?: unknown },
  ) {
    super(`storage conflict: ${kind}`, options);
    this.name = 'StorageConflict';
  }
}

const KINDS: Record<string, StorageConflict['kind']> = { P2002: 'unique', P2003: 'reference', P2034: 'retry' };

/** Runs a repository's write, translating the refusals a service decides on into StorageConflict. */
export async function storage<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    const kind = KINDS[prismaCode(error) ?? ''];
    throw kind ? new StorageConflict(kind, { cause: error }) : error;
  }
}

export const isConflict = (error: unknown, kind: StorageConflict['kind']): boolean =>
  error instanceof StorageConflict && error.kind === kind;
