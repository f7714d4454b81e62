import { DomainError } from '@platform/domain';
import { toId } from '../http/ids';

/** An optional id of a page's query (`after`, `before`): a bad one is a 400 page, never a guess. */
export function queryId(name: string, raw: unknown, what = 'an id'): bigint | undefined {
  if (raw === undefined) return undefined;
  const id = typeof raw === 'string' ? toId(raw) : undefined;
  if (id === undefined) throw new DomainError('INVALID_PARAMETER', `${name}: must be ${what}`);
  return id;
}

/** An optional text of a page's query; given twice (an array) or over 255 characters it is a 400 page. */
export function queryText(name: string, raw: unknown): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || raw.length > 255)
    throw new DomainError('INVALID_PARAMETER', `${name}: must be one text of at most 255 characters`);
  return raw;
}
