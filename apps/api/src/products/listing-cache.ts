import { LRUCache } from 'lru-cache';
import { Counter, type Registry } from 'prom-client';
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

/** Keys of pages asked for once, remembered so that a second ask keeps the page: about 2 MB at most. */
const SEEN_KEYS = 10_000;

/** A key asked for once (not kept yet), or whose page is to be kept when it is answered. */
const ONCE = 1;
const KEEP = 2;

/**
 * Answered listing pages, kept in this process (docs/performance.md). A page is served again only
 * under the store's catalog revision it was made under: every write that changes what the listing
 * answers moves the revision in its own transaction, and the revision is read with the caller's
 * token on every request, so no replica serves a page older than the last commit it could see.
 * Least recently used pages go first once `maxBytes` is reached (lru-cache's size bound); 0 keeps
 * nothing. A page is kept from its second ask on: the first is only remembered (its key, among the
 * last SEEN_KEYS), so pages asked once, as a catalog walk asks them, never push out pages asked
 * again and again. The revision rules are ours; the recency and the byte accounting are the library's.
 */
export class ListingCache {
  private readonly pages: LRUCache<string, Entry> | undefined;
  private readonly seen: LRUCache<string, number> | undefined;
  private readonly hits: { inc(): void } | undefined;
  private readonly misses: { inc(): void } | undefined;

  constructor(maxBytes: number, registry?: Registry) {
    if (registry) {
      const requests = new Counter({
        name: 'listing_cache_requests_total',
        help: 'Product listing pages asked for, by whether the page cache answered them (hit) or the database did (miss)',
        labelNames: ['result'] as const,
        registers: [registry],
      });
      this.hits = requests.labels({ result: 'hit' });
      this.misses = requests.labels({ result: 'miss' });
    }
    // lru-cache needs a positive bound; a budget of 0 keeps nothing at all.
    this.pages = maxBytes > 0 ? new LRUCache<string, Entry>({ maxSize: maxBytes, sizeCalculation: (entry) => entry.size }) : undefined;
    this.seen = maxBytes > 0 ? new LRUCache<string, number>({ max: SEEN_KEYS }) : undefined;
  }

  get(key: string, revision: bigint): CachedPage | undefined {
    const page = this.lookup(key, revision);
    (page === undefined ? this.misses : this.hits)?.inc();
    return page;
  }

  private lookup(key: string, revision: bigint): CachedPage | undefined {
    const pages = this.pages;
    if (pages === undefined || this.seen === undefined) return undefined;
    const entry = pages.get(key);
    if (entry === undefined) {
      // Kept from the second ask on (issue 48): an app walking a catalog asks each page once, and
      // keeping those pages cost their bytes and the eviction of pages that are asked again.
      this.seen.set(key, this.seen.has(key) ? KEEP : ONCE);
      return undefined;
    }
    if (entry.revision !== revision) {
      // A request authenticated before a commit must not evict the page made after it. A page
      // that was kept is kept again under the new revision.
      if (entry.revision < revision) {
        pages.delete(key);
        this.seen.set(key, KEEP);
      }
      return undefined;
    }
    return entry.page;
  }

  /** Keeps an answered page if its key was asked for before (get), or was kept under an older revision. */
  set(key: string, revision: bigint, page: CachedPage): void {
    const pages = this.pages;
    if (pages === undefined) return;
    const present = pages.peek(key);
    if (present === undefined && this.seen?.get(key) !== KEEP) return;
    this.seen?.delete(key);
    // A request that read an older revision and answers late does not replace the newer page.
    if (present !== undefined && present.revision > revision) return;
    // A page larger than the whole budget is not kept (lru-cache's maxEntrySize is maxSize).
    pages.set(key, { revision, page, size: page.body.length + ENTRY_OVERHEAD_BYTES });
  }
}
