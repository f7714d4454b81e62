// The pagination entry has no Node-only imports, so the SDK runs wherever fetch does.
import { parseLinkHeader, type PageLinks } from '@platform/domain/pagination';

export type { PageLinks };

/**
 * A response's `link` header, parsed by the same rule the server is tested against: `rel="prev"`
 * counts as previous, URLs are kept exactly as sent (decisions §6.5). No header, no links.
 */
export function linksOf(headers: Headers): PageLinks {
  return parseLinkHeader(headers.get('link'));
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
