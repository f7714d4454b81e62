import { formatInZone } from '@platform/domain';

function toDate(value: Date | string | number): Date {
  return value instanceof Date ? value : new Date(value);
}

function time(value: Date | string | number | null, timeZone: string): string {
  return value === null ? 'null' : `"${formatInZone(toDate(value), timeZone)}"`;
}

/** A product row as the listing reads it (ProductsRepository): stored documents and times. */
export interface ProductRow {
  id: bigint | number | string;
  title?: string;
  /** The document without id and times; read only when the listing document cannot be served. */
  doc: string;
  /** The product as the listing sends it, rendered at write time in `listing_zone` (null before). */
  listing_doc?: string | Uint8Array | null;
  listing_zone?: string | null;
  published_at: Date | string | number | null;
  created_at: Date | string | number;
  updated_at: Date | string | number;
}

/** The product row as written: its document and times (the listing document is made from these). */
export type ProductSource = Pick<ProductRow, 'id' | 'doc' | 'published_at' | 'created_at' | 'updated_at'>;

/**
 * The product exactly as the listing sends it without `fields`: the stored document with the id
 * and the three times (in the store's zone) spliced in, never parsed. Rendered at write time and
 * stored as `listing_doc` (with the zone it was rendered in); rendered here again only for a row
 * written before that column existed or before the store's zone changed.
 */
export function renderListingDocument(row: ProductSource, timeZone: string): string {
  const times = `"published_at":${time(row.published_at, timeZone)},"created_at":${time(row.created_at, timeZone)},"updated_at":${time(row.updated_at, timeZone)}`;
  const body = row.doc.length > 2 ? `${row.doc.slice(1, -1)},` : '';
  return `{"id":"${String(row.id)}",${body}${times}}`;
}

/** The stored listing document when it was rendered in the store's current zone. */
function storedListing(row: ProductRow, timeZone: string): string | Uint8Array | undefined {
  return row.listing_doc != null && row.listing_zone === timeZone ? row.listing_doc : undefined;
}

/**
 * One product of a page. Without `fields`, the stored document as it is (no parse: the page is a
 * concatenation). With `fields`, the one path that parses: the listing document, projected on the
 * fields asked for (`id` always).
 */
export function renderProduct(row: ProductRow, timeZone: string, fields: ReadonlySet<string> | undefined): Uint8Array | string {
  const stored = storedListing(row, timeZone);
  if (!fields) return stored ?? renderListingDocument(row, timeZone);
  const text =
    stored === undefined
      ? renderListingDocument(row, timeZone)
      : typeof stored === 'string'
        ? stored
        : Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).toString('utf8');
  const all = JSON.parse(text) as Record<string, unknown>;
  const picked: Record<string, unknown> = { id: all.id };
  for (const field of fields) if (field in all) picked[field] = all[field];
  return JSON.stringify(picked);
}
