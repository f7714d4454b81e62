import { Injectable } from '@nestjs/common';
import type { Db } from '@platform/db';
import { InjectDb } from '../core/injection';
import type { ProductSource } from './product-listing';

/**
 * A read model (docs/architecture.md, "Tables and their owners"): products joined with their
 * store's zone, for ListingDocumentsWorker. It reads only; the stores room writes the zone.
 */
@Injectable()
export class ListingDocumentsReadModel {
  constructor(@InjectDb() private readonly db: Db) {}

  /**
   * Up to `limit` products whose listing document is missing or of another zone than their store's,
   * with what rendering it needs and the zone to render in.
   */
  stale(limit: number): Promise<(ProductSource & { id: bigint; updated_at: Date; zone: string })[]> {
    return this.db.query(
      `SELECT p.id, p.doc, p.published_at, p.created_at, p.updated_at, s.iana_timezone AS zone
       FROM products p JOIN stores s ON s.id = p.store_id
       WHERE p.listing_zone IS NULL OR p.listing_zone <> s.iana_timezone
       LIMIT ?`,
      [limit],
    );
  }
}
