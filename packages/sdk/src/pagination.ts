// The pagination entry has no Node-only imports, so the SDK runs wherever fetch does.
import { parseLinkHeader, type PageLinks } from '@platform/domain/pagination';

export type { PageLinks };

/** A `link` URL, parsed: what the next (or previous) request will send. `url` is what is requested, as it stands. */
export interface PageRef {
  url: string;
  /** The opaque cursor (decisions §6.2). */
  pageInfo: string;
  limit: number | undefined;
  fields: string[] | undefined;
}

/**
 * A response's `link` header, parsed by the same rule the server is tested against: `rel="prev"`
 * counts as previous, URLs are kept exactly as sent (decisions §6.5). No header, no links.
 */
export function linksOf(headers: Headers): PageLinks {
  return parseLinkHeader(headers.get('link'));
}

/** A link URL read into its parts; undefined for no URL. */
export function pageRef(url: string | undefined): PageRef | undefined {
  if (url === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  const params = parsed?.searchParams;
  const limit = params?.get('limit');
  const fields = params?.get('fields');
  return {
    url,
    pageInfo: params?.get('page_info') ?? '',
    limit: limit ? Number(limit) : undefined,
    fields: fields ? fields.split(',') : undefined,
  };
}

/**
 * Every record of a paginated read: `load(undefined)` is the first page, then `load(next)` for each
 * `next` link until a page has none (spec, Pagination rules 4 and 5).
 */
export async function* paginate<T>(
  load: (nextUrl: string | undefined) => Promise<{ items: readonly T[]; link: PageLinks }>,
): AsyncGenerator<T, void, undefined> {
  let url: string | undefined;
  do {
    const page = await load(url);
    yield* page.items;
    url = page.link.next;
  } while (url !== undefined);
}
