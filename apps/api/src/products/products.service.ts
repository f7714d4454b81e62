import { Injectable } from '@nestjs/common';
import {
  buildLinkHeader,
  decodeCursor,
  DomainError,
  encodeCursor,
  parseFields,
  parseLimit,
  parseSinceId,
  type CursorPayload,
} from '@platform/domain';
import type { Config } from '../config';
import { InjectConfig } from '../db/db.module';
import { MAX_RESPONSE_BYTES } from '../http/conventions';
import type { StoreContext } from '../http/request-context';
import { renderProduct } from './product-listing';
import { ProductsRepository } from './products.repository';

export interface ListQuery {
  limit?: string;
  since_id?: string;
  page_info?: string;
  fields?: string;
}

export interface ListedPage {
  /** The whole `{"products":[...]}` body, already serialised. */
  json: string;
  link: string | undefined;
  count: number;
}

const ENVELOPE = '{"products":[]}'.length;

function valueOrThrow<T>(result: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!result.ok) throw new DomainError('INVALID_PARAMETER', result.message);
  return result.value;
}

@Injectable()
export class ProductsService {
  constructor(
    private readonly repository: ProductsRepository,
    @InjectConfig() private readonly config: Config,
  ) {}

  /**
   * The spec's Pagination section and decisions §6: keyset pages by ascending id, a signed cursor
   * carrying the first request's filters, pages that shrink to stay under 8 MB (§3.4).
   */
  async list(store: StoreContext, query: ListQuery, pageUrl: string): Promise<ListedPage> {
    const scope = { r: 'products', s: store.id.toString() };
    let direction: 'next' | 'prev' = 'next';
    let boundary: string | undefined;
    let sinceId: string;
    let limit: number;
    let fieldsText: string | undefined;
    if (query.page_info !== undefined) {
      const decoded = decodeCursor(query.page_info, this.config.secret, scope);
      if (!decoded.ok) throw new DomainError('INVALID_CURSOR', decoded.message);
      const cursor = decoded.payload;
      direction = cursor.d;
      boundary = cursor.b;
      sinceId = cursor.q.since_id ?? '0';
      limit = query.limit !== undefined ? valueOrThrow(parseLimit(query.limit)) : cursor.l;
      fieldsText = query.fields !== undefined ? query.fields : cursor.f;
    } else {
      limit = valueOrThrow(parseLimit(query.limit));
      sinceId = valueOrThrow(parseSinceId(query.since_id));
      fieldsText = query.fields;
    }
    const fieldList = parseFields(fieldsText);
    const fields = fieldList ? new Set(fieldList) : undefined;

    const rows = await this.repository.page({
      storeId: store.id,
      direction,
      boundary: boundary ?? sinceId,
      sinceId,
      take: limit + 1,
    });
    let more = rows.length > limit;
    if (more) rows.length = limit;

    // Rows are nearest-to-boundary first in both directions, so a page that must shrink keeps
    // the records next to where the client came from, and the link covers the rest.
    const rendered: string[] = [];
    let bytes = ENVELOPE;
    for (const row of rows) {
      const text = renderProduct(row, store.ianaTimezone, fields);
      const size = Buffer.byteLength(text) + (rendered.length > 0 ? 1 : 0);
      if (bytes + size > MAX_RESPONSE_BYTES) {
        if (rendered.length === 0) {
          throw new DomainError(
            'RECORD_TOO_LARGE',
            `Product ${String(row.id)} alone exceeds the 8 MB response limit; request fewer fields with the fields parameter`,
          );
        }
        more = true;
        break;
      }
      bytes += size;
      rendered.push(text);
    }
    const kept = rows.slice(0, rendered.length);
    if (direction === 'prev') {
      rendered.reverse();
      kept.reverse();
    }

    const cursorBase = { r: scope.r, s: scope.s, q: { since_id: sinceId }, l: limit, ...(fieldsText ? { f: fieldsText } : {}) };
    const linkFor = (d: 'next' | 'prev', b: string): string => {
      const cursor: CursorPayload = { ...cursorBase, d, b };
      const params = new URLSearchParams({ limit: String(limit), page_info: encodeCursor(cursor, this.config.secret) });
      if (fieldsText) params.set('fields', fieldsText);
      return `${pageUrl}?${params.toString()}`;
    };
    const first = kept[0];
    const last = kept[kept.length - 1];
    // A page reached through a cursor always has a page on the side it came from.
    const hasNext = direction === 'next' ? more : boundary !== undefined;
    const hasPrevious = direction === 'prev' ? more : boundary !== undefined;
    const link = buildLinkHeader({
      next: hasNext && last ? linkFor('next', String(last.id)) : undefined,
      previous: hasPrevious && first ? linkFor('prev', String(first.id)) : undefined,
    });
    return { json: `{"products":[${rendered.join(',')}]}`, link, count: rendered.length };
  }
}
