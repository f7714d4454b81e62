import type { LinkQueries } from '../http/keyset-pagination';

/** A page of the product listing as it was answered: its body bytes and where its links lead. */
export interface CachedPage {
  body: Buffer;
  linkQueries: LinkQueries;
}

/**
 * Answered listing pages, kept in this process (docs/performance.md). A page is served again only
 * under the store's catalog revision it was made under: every write that changes what the listing
 * answers moves the revision in its own transaction, and the revision is read with the caller's
 * token on every request, so no replica serves a page older than the last commit it could see.
 * Least recently used pages go first once `maxBytes` is reached; 0 keeps nothing.
 */
export class ListingCache {
  private readonly pages = new Map<string, { revision: bigint; page: CachedPage; size: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string, revision: bigint): CachedPage | undefined {
    const entry = this.pages.get(key);
    if (entry === undefined) return undefined;
    if (entry.revision !== revision) {
      // A request authenticated before a commit must not evict the page made after it.
      if (entry.revision < revision) this.remove(key);
      return undefined;
    }
    // Map order is insertion order: re-inserting marks it the most recently used.
    this.pages.delete(key);
    this.pages.set(key, entry);
    return entry.page;
  }

  set(key: string, revision: bigint, page: CachedPage): void {
    const size = page.body.length + 256;
    if (size > this.maxBytes) return;
    const present = this.pages.get(key);
    if (present !== undefined && present.revision > revision) return;
    this.remove(key);
    this.pages.set(key, { revision, page, size });
    this.bytes += size;
    for (const [oldest] of this.pages) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldest);
    }
  }

  private remove(key: string): void {
    const entry = this.pages.get(key);
    if (entry === undefined) return;
    this.pages.delete(key);
    this.bytes -= entry.size;
  }
}
