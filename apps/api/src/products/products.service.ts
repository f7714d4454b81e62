import { Injectable } from '@nestjs/common';
import type { Config } from '../config';
import { InjectConfig } from '../core/injection';
import { linkHeaderFor, readPageRequest, renderKeysetPage, type PageQuery } from '../http/keyset-pagination';
import type { StoreContext } from '../access/request-context';
import { ListingCache } from './listing-cache';
import { renderProduct } from './product-listing';
import { ProductsRepository } from './products.repository';

export type ListQuery = PageQuery;
export interface ListedPage {
  json: string | Buffer;
  link: string | undefined;
}

@Injectable()
export class ProductsService {
  private readonly cache: ListingCache;

  constructor(
    private readonly repository: ProductsRepository,
    @InjectConfig() private readonly config: Config,
  ) {
    this.cache = new ListingCache(config.listingCacheBytes);
  }

  /**
   * The spec's Pagination section and decisions §6: keyset pages by ascending id, a signed cursor
   * carrying the first request's filters, pages that shrink to stay under 8 MB (§3.4). A page
   * answered before under the store's current catalog revision is answered again from memory
   * (ListingCache); its links are rebuilt for the host it is asked on.
   */
  async list(store: StoreContext, query: ListQuery, pageUrl: string): Promise<ListedPage> {
    const scope = { r: 'products', s: store.id.toString() };
    const request = readPageRequest(query, scope, this.config);
    const revision = store.catalogRevision;
    const key = `${store.id}|${store.ianaTimezone}|${request.direction}|${request.boundary}|${request.sinceId}|${request.limit}|${request.paging ? 1 : 0}|${request.fieldsText ?? ''}`;
    const cached = revision === undefined ? undefined : this.cache.get(key, revision);
    if (cached) return { json: cached.body, link: linkHeaderFor(pageUrl, cached.linkQueries) };
    const page = await renderKeysetPage(request, 'products', scope, this.config.secret, pageUrl, {
      fetch: (take) =>
        this.repository.page(
          { storeId: store.id, direction: request.direction, boundary: request.boundary, sinceId: request.sinceId, take },
          store.ianaTimezone,
        ),
      idOf: (row) => String(row.id),
      render: (row) => renderProduct(row, store.ianaTimezone, request.fields),
      tooLarge: (row) => `Product ${String(row.id)} alone exceeds the 8 MB response limit; request fewer fields with the fields parameter`,
    });
    const body = typeof page.json === 'string' ? Buffer.from(page.json) : page.json;
    if (revision !== undefined) this.cache.set(key, revision, { body, linkQueries: page.linkQueries });
    return { json: body, link: page.link };
  }

  /** Whether the store has the product (decisions §8.9: a value's owner). */
  async exists(storeId: bigint, productId: bigint): Promise<boolean> {
    return (await this.repository.existingIds(storeId, [productId])).size > 0;
  }

  /** The ids among `productIds` that name products of the store. */
  existing(storeId: bigint, productIds: readonly bigint[]): Promise<Set<bigint>> {
    return this.repository.existingIds(storeId, [...new Set(productIds)]);
  }

  /** The product's `updated_at` (decisions §9.5), undefined when the store has no such product. */
  updatedAt(storeId: bigint, productId: bigint): Promise<Date | undefined> {
    return this.repository.updatedAt(storeId, productId);
  }
}
