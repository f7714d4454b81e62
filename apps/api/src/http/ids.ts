import { DomainError } from '@platform/domain';

/** Ids are 64-bit integers rendered as decimal strings (decisions §3.5). */
export const MAX_ID = 9223372036854775807n;
const DECIMAL_ID = /^(0|[1-9]\d{0,18})$/;

/** The id a decimal string names, or undefined when it cannot be a stored id. */
export function toId(raw: string): bigint | undefined {
  if (!DECIMAL_ID.test(raw)) return undefined;
  const id = BigInt(raw);
  return id <= MAX_ID ? id : undefined;
}

/** A path id: anything that cannot be a stored id names no resource (404). */
export function pathId(raw: string): bigint {
  const id = toId(raw);
  if (id === undefined) throw new DomainError('NOT_FOUND', 'Not Found');
  return id;
}
