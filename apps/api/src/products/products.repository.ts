import { Injectable } from '@nestjs/common';
import { allocateIds, insertRows, type Db, type TransactionClient } from '@platform/db';
import { nextUpdatedAt } from '@platform/domain';
import { InjectDb } from '../core/injection';
import { renderProductDocument, slugify, type ProductInput } from './product-document';
import { renderListingDocument, type ProductRow } from './product-listing';
import { buildProductRows, buildReplacedParts, COLUMNS, countParts, type IdPool, type PartsToWrite } from './product-rows';

/** The page queries: one plan whatever the values (the (store_id, id) index), so planned once per connection (docs/performance.md). */
const PREPARED = { prepare: true };

export interface PageQuery {
  storeId: bigint;
  direction: 'next' | 'prev';
  /** Exclusive: rows after this id (next) or before it (prev). */
  boundary: string;
  /** Exclusive lower bound of the whole listing (since_id). */
  sinceId: string;
  take: number;
}

const READ_COLUMNS = 'id, title, doc, published_at, created_at, updated_at';
const ROW_SELECT = { id: true, doc: true, publishedAt: true, createdAt: true, updatedAt: true } as const;

function toRow(p: { id: bigint; doc: string; publishedAt: Date | null; createdAt: Date; updatedAt: Date }): ProductRow {
  return { id: p.id, doc: p.doc, published_at: p.publishedAt, created_at: p.createdAt, updated_at: p.updatedAt };
}

/** What the listing reads of a product first: its stored listing document and the zone of its times. */
interface ListingRow {
  id: bigint;
  listing_zone: string | null;
  listing_doc: string | null;
}

type Tx = TransactionClient;

@Injectable()
export class ProductsRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  /**
   * Keyset page: an index range scan on (store_id, id), as fast deep as on the first page. Reads
   * only the stored listing documents (bytes) and their zone: rows whose document was not
   * rendered in `timeZone` (the store's zone now) are read again with their document and times,
   * to be rendered (rare: until ListingDocumentsWorker has caught up).
   */
  async page(q: PageQuery, timeZone: string): Promise<ProductRow[]> {
    // As text: drivers hand out one string per row faster than one Buffer per row (better-sqlite3
    // allocates each BLOB on its own), and a page is encoded once, when it is cached.
    const doc = this.db.provider === 'postgresql' ? "convert_from(listing_doc, 'UTF8')" : 'CAST(listing_doc AS TEXT)';
    const rows =
      q.direction === 'next'
        ? await this.db.query<ListingRow>(
            `SELECT id, listing_zone, ${doc} AS listing_doc FROM products WHERE store_id = ? AND id > ? ORDER BY id ASC LIMIT ?`,
            [q.storeId.toString(), q.boundary, q.take],
            PREPARED,
          )
        : await this.db.query<ListingRow>(
            `SELECT id, listing_zone, ${doc} AS listing_doc FROM products WHERE store_id = ? AND id < ? AND id > ? ORDER BY id DESC LIMIT ?`,
            [q.storeId.toString(), q.boundary, q.sinceId, q.take],
            PREPARED,
          );
    const stale = rows.filter((row) => row.listing_zone !== timeZone || row.listing_doc === null);
    if (stale.length === 0) return rows as ProductRow[];
    const marks = stale.map(() => '?').join(',');
    const sources = await this.db.query<ProductRow>(`SELECT ${READ_COLUMNS} FROM products WHERE store_id = ? AND id IN (${marks})`, [
      q.storeId.toString(),
      ...stale.map((row) => row.id.toString()),
    ]);
    const byId = new Map(sources.map((row) => [String(row.id), row]));
    // A stale row deleted between the two reads is left out, as if the page had been read after.
    return rows.flatMap((row) => (stale.includes(row) ? (byId.get(String(row.id)) ?? []) : [row as ProductRow]));
  }

  /** Stores a listing document unless the row was written since it was read (that write stored its own). */
  async storeListingDocument(id: bigint, updatedAt: Date, listing: string, zone: string): Promise<boolean> {
    const written = await this.db.prisma.product.updateMany({
      where: { id, updatedAt },
      data: { listingDoc: Buffer.from(listing), listingZone: zone },
    });
    return written.count === 1;
  }

  /** A page of (id, title) for the merchant's products list, keyset by id like the listing. */
  titles(q: PageQuery): Promise<{ id: bigint; title: string }[]> {
    if (q.direction === 'next') {
      return this.db.query(`SELECT id, title FROM products WHERE store_id = ? AND id > ? ORDER BY id ASC LIMIT ?`, [
        q.storeId.toString(),
        q.boundary,
        q.take,
      ]);
    }
    return this.db.query(`SELECT id, title FROM products WHERE store_id = ? AND id < ? AND id > ? ORDER BY id DESC LIMIT ?`, [
      q.storeId.toString(),
      q.boundary,
      q.sinceId,
      q.take,
    ]);
  }

  async findOne(storeId: bigint, id: bigint): Promise<ProductRow | undefined> {
    const rows = await this.db.query<ProductRow>(`SELECT ${READ_COLUMNS} FROM products WHERE store_id = ? AND id = ?`, [
      storeId.toString(),
      id.toString(),
    ]);
    return rows[0];
  }

  /**
   * Creates up to 1,000 products with their parts in `tx` (ProductsWriteService runs it, the
   * store's catalog revision moved first), as a bulk import should: ids reserved in bulk
   * (allocateIds), every document (and the listing document, the bytes the listing will send)
   * rendered once in memory, then one multi-row insert per table, no read-back. Returns the listing
   * documents in input order, as the bytes stored: the answer. `checkDocuments` sees them before
   * anything is written and may throw to write nothing.
   */
  async createMany(
    tx: Tx,
    store: { id: bigint; ianaTimezone: string },
    inputs: ProductInput[],
    now: Date,
    checkDocuments: (docs: readonly Buffer[]) => void,
  ): Promise<Buffer[]> {
    const counts = countParts(inputs);
    const productIds = await allocateIds(tx, this.db, 'products', inputs.length);
    const pool = await this.reserveParts(tx, counts);
    const rows = buildProductRows(store, inputs, productIds, pool, now);
    checkDocuments(rows.listing);
    await insertRows(tx, this.db, 'products', COLUMNS.products, rows.products);
    await this.insertParts(tx, rows);
    return rows.listing;
  }

  /**
   * Locks the product's row for a PATCH in `tx` (an update that changes nothing, plain SQL on both
   * providers), first of all. False when the product is not the store's.
   */
  async lock(tx: Tx, storeId: bigint, id: bigint): Promise<boolean> {
    const locked = await tx.$executeRaw`UPDATE products SET updated_at = updated_at WHERE id = ${id} AND store_id = ${storeId}`;
    return locked > 0;
  }

  /**
   * A PATCH in `tx` on the row locked first (lock; ProductsWriteService runs both): the row is
   * read, merged by `change`, written and read back, so two PATCHes at once are applied one after
   * the other, each on what the other wrote (no lost field), each moves `updated_at` past the last
   * (nextUpdatedAt), and each answers with its own write (the listing document stored with it).
   * `checkDocuments` as in createMany. Parts made now (variants, inventory items) are stamped `now`.
   */
  async replace(
    tx: Tx,
    store: { id: bigint; ianaTimezone: string },
    id: bigint,
    now: Date,
    change: (row: ProductRow) => { input: ProductInput; parts: PartsToWrite },
    checkDocuments: (docs: string[]) => void,
  ): Promise<string> {
    const { id: storeId, ianaTimezone: timeZone } = store;
    const current = await tx.product.findUniqueOrThrow({ where: { id }, select: ROW_SELECT });
    const { input, parts } = change(toRow(current));
    const stored = parts.images && parts.media && parts.options && parts.variants ? undefined : await this.storedParts(tx, id);
    const pool = await this.reserveParts(tx, countParts([input], parts));
    const written = buildReplacedParts(storeId, id, input, pool, now, parts, stored ?? EMPTY_PARTS);
    const ids = written.ids;
    // The parts replaced go (inventory items with their variants), then the new ones are written.
    if (parts.images) await tx.productImage.deleteMany({ where: { productId: id } });
    if (parts.media) await tx.productMedia.deleteMany({ where: { productId: id } });
    if (parts.options) await tx.productOption.deleteMany({ where: { productId: id } });
    if (parts.variants) {
      await tx.inventoryItem.deleteMany({ where: { variant: { productId: id } } });
      await tx.productVariant.deleteMany({ where: { productId: id } });
    }
    await this.insertParts(tx, written);
    const doc = renderProductDocument(input, ids);
    const publishedAt = input.published_at ? new Date(input.published_at) : null;
    const updatedAt = nextUpdatedAt(current.updatedAt, now);
    const listing = renderListingDocument(
      { id, doc, published_at: publishedAt, created_at: current.createdAt, updated_at: updatedAt },
      timeZone,
    );
    checkDocuments([listing]);
    await tx.product.update({
      where: { id },
      data: {
        title: input.title,
        handle: input.handle || slugify(input.title),
        status: input.status ?? 'active',
        publishedAt,
        doc,
        listingDoc: Buffer.from(listing),
        listingZone: timeZone,
        updatedAt,
      },
      select: { id: true },
    });
    return listing;
  }

  /** The ids among `ids` of products of the store (the metafields room asks, through ProductsService). */
  async existingIds(storeId: bigint, ids: readonly bigint[]): Promise<Set<bigint>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.query<{ id: bigint }>(
      `SELECT id FROM products WHERE store_id = ? AND id IN (${ids.map(() => '?').join(',')})`,
      [storeId, ...ids],
    );
    return new Set(rows.map((r) => BigInt(r.id)));
  }

  /** The product's `updated_at`, undefined when the store has no such product (resource feedback asks). */
  async updatedAt(storeId: bigint, id: bigint): Promise<Date | undefined> {
    const row = await this.db.prisma.product.findFirst({ where: { id, storeId }, select: { updatedAt: true } });
    return row?.updatedAt;
  }

  private async storedParts(tx: Tx, productId: bigint): Promise<StoredParts> {
    const [images, media, options, variants] = [
      await tx.productImage.findMany({ where: { productId }, orderBy: { position: 'asc' }, select: { id: true } }),
      await tx.productMedia.findMany({ where: { productId }, orderBy: { position: 'asc' }, select: { id: true } }),
      await tx.productOption.findMany({ where: { productId }, orderBy: { position: 'asc' }, select: { id: true } }),
      await tx.productVariant.findMany({
        where: { productId },
        orderBy: { position: 'asc' },
        select: { id: true, inventoryItem: { select: { id: true } } },
      }),
    ];
    return {
      imageIds: images.map((r) => r.id),
      mediaIds: media.map((r) => r.id),
      optionIds: options.map((r) => r.id),
      variants: variants.map((v) => ({ id: v.id, inventoryItemId: v.inventoryItem?.id ?? 0n })),
    };
  }

  /** Ids for the parts a write makes, reserved in bulk (inventory items one per variant). */
  private async reserveParts(tx: Tx, counts: { options: number; images: number; media: number; variants: number }): Promise<IdPool> {
    const reserve = (table: string, count: number) => allocateIds(tx, this.db, table, count);
    return {
      options: await reserve('product_options', counts.options),
      images: await reserve('product_images', counts.images),
      media: await reserve('product_media', counts.media),
      variants: await reserve('product_variants', counts.variants),
      items: await reserve('inventory_items', counts.variants),
    };
  }

  /** Multi-row inserts of the parts, parents before children (an inventory item names its variant). */
  private async insertParts(tx: Tx, rows: Omit<ReturnType<typeof buildReplacedParts>, 'ids'>): Promise<void> {
    const db = this.db;
    await insertRows(tx, db, 'product_options', COLUMNS.product_options, rows.options);
    await insertRows(tx, db, 'product_images', COLUMNS.product_images, rows.images);
    await insertRows(tx, db, 'product_media', COLUMNS.product_media, rows.media);
    await insertRows(tx, db, 'product_variants', COLUMNS.product_variants, rows.variants);
    await insertRows(tx, db, 'inventory_items', COLUMNS.inventory_items, rows.items);
  }
}

const EMPTY_PARTS: StoredParts = { imageIds: [], mediaIds: [], optionIds: [], variants: [] };

export interface StoredParts {
  imageIds: bigint[];
  mediaIds: bigint[];
  optionIds: bigint[];
  variants: { id: bigint; inventoryItemId: bigint }[];
}
