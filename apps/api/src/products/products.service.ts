import { Injectable } from '@nestjs/common';
import type { Config } from '../config';
import { InjectConfig } from '../db/db.module';
import { readPageRequest, renderKeysetPage, type PageQuery, type RenderedPage } from '../http/keyset-pagination';
import type { StoreContext } from '../http/request-context';
import { renderProduct } from './product-listing';
import { ProductsRepository } from './products.repository';

export type ListQuery = PageQuery;
export type ListedPage = RenderedPage;

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
    const request = readPageRequest(query, scope, this.config);
    return renderKeysetPage(request, 'products', scope, this.config.secret, pageUrl, {
      fetch: (take) =>
        this.repository.page({
          storeId: store.id,
          direction: request.direction,
          boundary: request.boundary,
          sinceId: request.sinceId,
          take,
        }),
      idOf: (row) => String(row.id),
      render: (row) => renderProduct(row, store.ianaTimezone, request.fields),
      tooLarge: (row) =>
        `Product ${String(row.id)} alone exceeds the 8 MB response limit; request fewer fields with the fields parameter`,
    });
  }
}
