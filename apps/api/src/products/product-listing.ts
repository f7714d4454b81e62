import { formatInZone } from '@platform/domain';
import type { ProductRow } from './products.repository';

function toDate(value: Date | string | number): Date {
  return value instanceof Date ? value : new Date(value);
}

function time(value: Date | string | number | null, timeZone: string): string {
  return value === null ? 'null' : `"${formatInZone(toDate(value), timeZone)}"`;
}

/**
 * One product as JSON text. Without `fields` the stored document is spliced, not parsed
 * (the read path does no JSON.parse/stringify of the product body).
 */
export function renderProduct(row: ProductRow, timeZone: string, fields: ReadonlySet<string> | undefined): string {
  const times = `"published_at":${time(row.published_at, timeZone)},"created_at":${time(row.created_at, timeZone)},"updated_at":${time(row.updated_at, timeZone)}`;
  const id = String(row.id);
  if (!fields) {
    const body = row.doc.length > 2 ? `${row.doc.slice(1, -1)},` : '';
    return `{"id":"${id}",${body}${times}}`;
  }
  const doc = JSON.parse(row.doc) as Record<string, unknown>;
  const all: Record<string, unknown> = { id, ...doc, ...(JSON.parse(`{${times}}`) as Record<string, unknown>) };
  const picked: Record<string, unknown> = { id };
  for (const field of fields) if (field in all) picked[field] = all[field];
  return JSON.stringify(picked);
}
