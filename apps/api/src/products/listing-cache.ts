import { LRUCache } from 'lru-cache';
import type { LinkQueries } from '../http/keyset-pagination';

/** A page of the product listing as it was answered: its body bytes and where its links lead. */
export interface CachedPage {
  body: Buffer;
  linkQueries: LinkQueries;
}

interface Entry {
  revision: bigint;
  page: CachedPage;
  size: number;
}

/** What a kept page costs beside its body: the entry, its key and its link queries, roughly. */
const ENTRY_OVERHEAD_BYTES = 256;

/**
 * Answered listing pages, kept in this process (docs/performance.md). A page is served again only
 * under the store's catalog revision it was made under: every write that changes what the listing
 * answers moves the revision in its own transaction, and the revision is read with the caller's
 * token on every request, so no replica serves a page older than the last commit it could see.
 * Least recently used pages go first once `maxBytes` is reached (lru-cache's size bound); 0 keeps
 * nothing. The revision rules are ours; the recency and the byte accounting are the library's.
 */
export class ListingCache {
  private readonly pages: LRUCache<string, Entry> | undefined;

  constructor(maxBytes: number) {
    // lru-cache needs a positive bound; a budget of 0 keeps nothing at all.
    this.pages = maxBytes > 0 ? new LRUCache<string, Entry>({ maxSize: maxBytes, sizeCalculation: (entry) => entry.size }) : undefined;
  }

  get(key: string, revision: bigint): CachedPage | undefined {
    const pages = this.pages;
    if (pages === undefined) return undefined;
    const entry = pages.get(key);
    if (entry === undefined) return undefined;
    if (entry.revision !== revision) {
      // A request authenticated before a commit must not evict the page made after it.
      if (entry.revision < revision) pages.delete(key);
      return undefined;
    }
    return entry.page;
  }

  set(key: string, revision: bigint, page: CachedPage): void {
    const pages = this.pages;
    if (pages === undefined) return;
    const present = pages.peek(key);
    // A request that read an older revision and answers late does not replace the newer page.
    if (present !== undefined && present.revision > revision) return;
    // A page larger than the whole budget is not kept (lru-cache's maxEntrySize is maxSize).
    pages.set(key, { revision, page, size: page.body.length + ENTRY_OVERHEAD_BYTES });
  }
}
