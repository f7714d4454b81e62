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
import { acceptedSecrets, type Config } from '../config';
import { jsonArrayBody } from './raw-json';
import { MAX_RESPONSE_BYTES } from './wire';

/** The query parameters every paginated read takes (spec Pagination, decisions §6). */
export interface PageQuery {
  limit?: string;
  since_id?: string;
  page_info?: string;
  fields?: string;
}

/** Which listing a cursor belongs to: a cursor of another resource or store is a 400 (decisions §6.2). */
export interface CursorScope {
  r: string;
  s: string;
}

/** One page request, resolved from the query or from the cursor it carries. */
export interface PageRequest {
  direction: 'next' | 'prev';
  /** Exclusive: rows after this id (next) or before it (prev); `sinceId` on a first page. */
  boundary: string;
  /** Exclusive lower bound of the whole listing. */
  sinceId: string;
  limit: number;
  fieldsText: string | undefined;
  /** `id` plus the requested fields, or undefined for all. */
  fields: ReadonlySet<string> | undefined;
  /** The first request's filters (besides since_id); from the cursor when paging. */
  filters: Record<string, string>;
  /** True when the request carried page_info. */
  paging: boolean;
}

function valueOrThrow<T>(result: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!result.ok) throw new DomainError('INVALID_PARAMETER', result.message);
  return result.value;
}

/**
 * decisions §6.1-§6.2: limit 1..1000 (default 50), since_id, or a signed page_info that carries the
 * first request's filters; with page_info every filter except limit and fields is ignored, so
 * `firstFilters` (which may validate and throw) is only called on a first page.
 */
export function readPageRequest(
  query: PageQuery,
  scope: CursorScope,
  secrets: Pick<Config, 'secret' | 'previousSecret'>,
  firstFilters: () => Record<string, string> = () => ({}),
): PageRequest {
  let request: Omit<PageRequest, 'fields'>;
  if (query.page_info !== undefined) {
    // A cursor signed with the previous secret still works during a rotation (docs/production.md).
    const pageInfo = query.page_info;
    const attempts = acceptedSecrets(secrets).map((secret) => decodeCursor(pageInfo, secret, scope));
    const decoded = attempts.find((a) => a.ok) ?? attempts[0]!;
    if (!decoded.ok) throw new DomainError('INVALID_CURSOR', decoded.message);
    const cursor = decoded.payload;
    const { since_id: sinceId = '0', ...filters } = cursor.q;
    request = {
      direction: cursor.d,
      boundary: cursor.b,
      sinceId,
      limit: query.limit !== undefined ? valueOrThrow(parseLimit(query.limit)) : cursor.l,
      fieldsText: query.fields !== undefined ? query.fields : cursor.f,
      filters,
      paging: true,
    };
  } else {
    const limit = valueOrThrow(parseLimit(query.limit));
    const sinceId = valueOrThrow(parseSinceId(query.since_id));
    request = { direction: 'next', boundary: sinceId, sinceId, limit, fieldsText: query.fields, filters: firstFilters(), paging: false };
  }
  const fieldList = parseFields(request.fieldsText);
  return { ...request, fields: fieldList ? new Set(fieldList) : undefined };
}

export interface RenderedPage {
  /** The whole `{"<key>":[...]}` body, already serialised (bytes when records were stored as bytes). */
  json: string | Buffer;
  link: string | undefined;
  /** The query strings of the `link` header's URLs, which hold for any host the page is asked on. */
  linkQueries: LinkQueries;
  count: number;
}

/** `limit=..&page_info=..(&fields=..)` of the next and previous pages, when they exist. */
export interface LinkQueries {
  next?: string;
  previous?: string;
}

/** decisions §6.3: the `link` header of a page asked at `pageUrl` (scheme, host and path of the request). */
export function linkHeaderFor(pageUrl: string, queries: LinkQueries): string | undefined {
  return buildLinkHeader({
    next: queries.next === undefined ? undefined : `${pageUrl}?${queries.next}`,
    previous: queries.previous === undefined ? undefined : `${pageUrl}?${queries.previous}`,
  });
}

export interface PageSource<Row> {
  /**
   * Up to `take` rows past the request's boundary in its direction, nearest to the boundary first
   * (ascending id for next, descending for prev).
   */
  fetch(take: number): Promise<Row[]>;
  idOf(row: Row): string;
  /** One record as JSON: text, or the UTF-8 bytes a record was stored as (sent without conversion). */
  render(row: Row): string | Uint8Array;
  /** The 400 message when one record alone is over the response cap (decisions §3.4). */
  tooLarge(row: Row): string;
}

/**
 * One keyset page: limit+1 rows tell whether more exist; rows are added while the body stays under
 * 8 MB (decisions §3.4), and a page that must shrink keeps the records next to where the client came
 * from, with a link that covers the rest. Links per decisions §6.3.
 */
export async function renderKeysetPage<Row>(
  request: PageRequest,
  key: string,
  scope: CursorScope,
  secret: string,
  pageUrl: string,
  source: PageSource<Row>,
): Promise<RenderedPage> {
  const { direction, limit, fieldsText } = request;
  const rows = await source.fetch(limit + 1);
  let more = rows.length > limit;
  if (more) rows.length = limit;

  const rendered: (string | Uint8Array)[] = [];
  const envelope = `{"${key}":[]}`.length;
  // A UTF-16 unit is at most 3 UTF-8 bytes: while that bound stays under the cap, no exact count is
  // needed (the usual page); past it, bytes are counted exactly. Stored bytes count as they are.
  const upperBound = (piece: string | Uint8Array) => (typeof piece === 'string' ? piece.length * 3 : piece.length);
  const exactSize = (piece: string | Uint8Array) => (typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length);
  let bytes = envelope;
  let exact = false;
  for (const row of rows) {
    const piece = source.render(row);
    const separator = rendered.length > 0 ? 1 : 0;
    if (!exact) {
      if (bytes + upperBound(piece) + separator * 3 <= MAX_RESPONSE_BYTES) {
        bytes += upperBound(piece) + separator * 3;
        rendered.push(piece);
        continue;
      }
      bytes = envelope + rendered.reduce((sum, p, i) => sum + exactSize(p) + (i > 0 ? 1 : 0), 0);
      exact = true;
    }
    const size = exactSize(piece) + separator;
    if (bytes + size > MAX_RESPONSE_BYTES) {
      if (rendered.length === 0) throw new DomainError('RECORD_TOO_LARGE', source.tooLarge(row));
      more = true;
      break;
    }
    bytes += size;
    rendered.push(piece);
  }
  const kept = rows.slice(0, rendered.length);
  if (direction === 'prev') {
    rendered.reverse();
    kept.reverse();
  }

  const cursorBase = {
    r: scope.r,
    s: scope.s,
    q: { ...request.filters, since_id: request.sinceId },
    l: limit,
    ...(fieldsText ? { f: fieldsText } : {}),
  };
  const linkFor = (d: 'next' | 'prev', b: string): string => {
    const cursor: CursorPayload = { ...cursorBase, d, b };
    const params = new URLSearchParams({ limit: String(limit), page_info: encodeCursor(cursor, secret) });
    if (fieldsText) params.set('fields', fieldsText);
    return params.toString();
  };
  const first = kept[0];
  const last = kept[kept.length - 1];
  // A page reached through a cursor always has a page on the side it came from.
  const hasNext = direction === 'next' ? more : request.paging;
  const hasPrevious = direction === 'prev' ? more : request.paging;
  const linkQueries: LinkQueries = {
    ...(hasNext && last !== undefined ? { next: linkFor('next', source.idOf(last)) } : {}),
    ...(hasPrevious && first !== undefined ? { previous: linkFor('prev', source.idOf(first)) } : {}),
  };
  const link = linkHeaderFor(pageUrl, linkQueries);
  return { json: jsonArrayBody(key, rendered), link, linkQueries, count: rendered.length };
}
