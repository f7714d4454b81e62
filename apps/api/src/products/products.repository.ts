import { Injectable } from '@nestjs/common';
import type { Db } from '@platform/db';
import { nextUpdatedAt } from '@platform/domain';
import { InjectDb } from '../db/db.module';
import { renderProductDocument, variantsOf, decimalText, slugify, type ProductInput, type ProductIds } from './product-document';

export interface ProductRow {
  id: bigint | number | string;
  doc: string;
  published_at: Date | string | number | null;
  created_at: Date | string | number;
  updated_at: Date | string | number;
}

export interface PageQuery {
  storeId: bigint;
  direction: 'next' | 'prev';
  /** Exclusive: rows after this id (next) or before it (prev). */
  boundary: string;
  /** Exclusive lower bound of the whole listing (since_id). */
  sinceId: string;
  take: number;
}

const COLUMNS = 'id, doc, published_at, created_at, updated_at';
const ROW_SELECT = { id: true, doc: true, publishedAt: true, createdAt: true, updatedAt: true } as const;

function toRow(p: { id: bigint; doc: string; publishedAt: Date | null; createdAt: Date; updatedAt: Date }): ProductRow {
  return { id: p.id, doc: p.doc, published_at: p.publishedAt, created_at: p.createdAt, updated_at: p.updatedAt };
}

type Tx = Parameters<Parameters<Db['prisma']['$transaction']>[0]>[0];

@Injectable()
export class ProductsRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  /** Keyset page: an index range scan on (store_id, id), as fast deep as on the first page. */
  page(q: PageQuery): Promise<ProductRow[]> {
    if (q.direction === 'next') {
      return this.db.query<ProductRow>(
        `SELECT ${COLUMNS} FROM products WHERE store_id = ? AND id > ? ORDER BY id ASC LIMIT ?`,
        [q.storeId.toString(), q.boundary, q.take],
      );
    }
    return this.db.query<ProductRow>(
      `SELECT ${COLUMNS} FROM products WHERE store_id = ? AND id < ? AND id > ? ORDER BY id DESC LIMIT ?`,
      [q.storeId.toString(), q.boundary, q.sinceId, q.take],
    );
  }

  async findOne(storeId: bigint, id: bigint): Promise<ProductRow | undefined> {
    const rows = await this.db.query<ProductRow>(`SELECT ${COLUMNS} FROM products WHERE store_id = ? AND id = ?`, [
      storeId.toString(),
      id.toString(),
    ]);
    return rows[0];
  }

  /**
   * Creates products with their parts in one transaction; each product's document is rendered once
   * here. `checkDocuments` sees the documents before the commit and may throw to write nothing.
   */
  async createMany(storeId: bigint, inputs: ProductInput[], now: Date, checkDocuments: (docs: string[]) => void): Promise<bigint[]> {
    return this.db.prisma.$transaction(
      async (tx) => {
        const ids: bigint[] = [];
        const docs: string[] = [];
        for (const input of inputs) {
          const { id, doc } = await this.insertOne(tx, storeId, input, now);
          ids.push(id);
          docs.push(doc);
        }
        checkDocuments(docs);
        return ids;
      },
      { timeout: 120_000, maxWait: 30_000 },
    );
  }

  /**
   * A PATCH as one transaction on the locked row: the row is locked first (an update that changes
   * nothing, plain SQL on both providers), then read, merged by `change`, written and read back, so
   * two PATCHes at once are applied one after the other, each on what the other wrote (no lost
   * field), each moves `updated_at` past the last (nextUpdatedAt), and each answers with its own
   * write. `checkDocuments` as in createMany. Parts made now (variants, inventory items) are stamped
   * `now`. Undefined when the product is not the store's.
   */
  async replace(
    storeId: bigint,
    id: bigint,
    now: Date,
    change: (row: ProductRow) => { input: ProductInput; parts: { images: boolean; media: boolean; options: boolean; variants: boolean } },
    checkDocuments: (docs: string[]) => void,
  ): Promise<ProductRow | undefined> {
    return this.db.prisma.$transaction(
      async (tx) => {
        const locked = await tx.$executeRaw`UPDATE products SET updated_at = updated_at WHERE id = ${id} AND store_id = ${storeId}`;
        if (locked === 0) return undefined;
        const current = await tx.product.findUniqueOrThrow({ where: { id }, select: ROW_SELECT });
        const { input, parts } = change(toRow(current));
        const stored = parts.images && parts.media && parts.options && parts.variants ? undefined : await this.storedParts(tx, id);
        const ids: ProductIds = {
          productId: id,
          imageIds: parts.images ? await this.createImages(tx, id, input) : stored!.imageIds,
          mediaIds: parts.media ? await this.createMedia(tx, id, input) : stored!.mediaIds,
          optionIds: parts.options ? await this.createOptions(tx, id, input) : stored!.optionIds,
          variants: parts.variants ? await this.createVariants(tx, storeId, id, input, now) : stored!.variants,
        };
        if (parts.images) await tx.productImage.deleteMany({ where: { productId: id, id: { notIn: ids.imageIds } } });
        if (parts.media) await tx.productMedia.deleteMany({ where: { productId: id, id: { notIn: ids.mediaIds } } });
        if (parts.options) await tx.productOption.deleteMany({ where: { productId: id, id: { notIn: ids.optionIds } } });
        if (parts.variants) {
          const keep = ids.variants.map((v) => v.id);
          await tx.inventoryItem.deleteMany({ where: { variant: { productId: id }, variantId: { notIn: keep } } });
          await tx.productVariant.deleteMany({ where: { productId: id, id: { notIn: keep } } });
        }
        const doc = renderProductDocument(input, ids);
        checkDocuments([doc]);
        const written = await tx.product.update({
          where: { id },
          data: {
            title: input.title,
            handle: input.handle || slugify(input.title),
            status: input.status ?? 'active',
            publishedAt: input.published_at ? new Date(input.published_at) : null,
            doc,
            updatedAt: nextUpdatedAt(current.updatedAt, now),
          },
          select: ROW_SELECT,
        });
        return toRow(written);
      },
      { timeout: 60_000, maxWait: 30_000 },
    );
  }

  private async storedParts(tx: Tx, productId: bigint): Promise<StoredParts> {
    const [images, media, options, variants] = [
      await tx.productImage.findMany({ where: { productId }, orderBy: { position: 'asc' }, select: { id: true } }),
      await tx.productMedia.findMany({ where: { productId }, orderBy: { position: 'asc' }, select: { id: true } }),
      await tx.productOption.findMany({ where: { productId }, orderBy: { position: 'asc' }, select: { id: true } }),
      await tx.productVariant.findMany({ where: { productId }, orderBy: { position: 'asc' }, select: { id: true, inventoryItem: { select: { id: true } } } }),
    ];
    return {
      imageIds: images.map((r) => r.id),
      mediaIds: media.map((r) => r.id),
      optionIds: options.map((r) => r.id),
      variants: variants.map((v) => ({ id: v.id, inventoryItemId: v.inventoryItem?.id ?? 0n })),
    };
  }

  private async insertOne(tx: Tx, storeId: bigint, input: ProductInput, now: Date): Promise<{ id: bigint; doc: string }> {
    const product = await tx.product.create({
      data: {
        storeId,
        title: input.title,
        handle: input.handle || slugify(input.title),
        status: input.status ?? 'active',
        doc: '{}',
        publishedAt: input.published_at ? new Date(input.published_at) : (input.status ?? 'active') === 'active' ? now : null,
        createdAt: now,
        updatedAt: now,
      },
      select: { id: true },
    });
    const ids: ProductIds = {
      productId: product.id,
      imageIds: await this.createImages(tx, product.id, input),
      mediaIds: await this.createMedia(tx, product.id, input),
      optionIds: await this.createOptions(tx, product.id, input),
      variants: await this.createVariants(tx, storeId, product.id, input, now),
    };
    const doc = renderProductDocument(input, ids);
    await tx.product.update({ where: { id: product.id }, data: { doc, updatedAt: now } });
    return { id: product.id, doc };
  }

  private async createImages(tx: Tx, productId: bigint, input: ProductInput): Promise<bigint[]> {
    const images = input.images ?? [];
    if (images.length === 0) return [];
    const rows = await tx.productImage.createManyAndReturn({
      data: images.map((image, i) => ({ productId, position: i + 1, src: image.src, alt: image.alt ?? '' })),
      select: { id: true, position: true },
    });
    return rows.sort((a, b) => a.position - b.position).map((r) => r.id);
  }

  private async createMedia(tx: Tx, productId: bigint, input: ProductInput): Promise<bigint[]> {
    const media = input.media ?? [];
    if (media.length === 0) return [];
    const rows = await tx.productMedia.createManyAndReturn({
      data: media.map((m, i) => ({
        productId,
        position: i + 1,
        src: m.src,
        alt: m.alt ?? '',
        caption: m.caption ?? '',
        contentType: m.content_type ?? 'IMAGE',
      })),
      select: { id: true, position: true },
    });
    return rows.sort((a, b) => a.position - b.position).map((r) => r.id);
  }

  private async createOptions(tx: Tx, productId: bigint, input: ProductInput): Promise<bigint[]> {
    const options = input.options ?? [];
    if (options.length === 0) return [];
    const rows = await tx.productOption.createManyAndReturn({
      data: options.map((o, i) => ({ productId, position: i + 1, name: o.name })),
      select: { id: true, position: true },
    });
    return rows.sort((a, b) => a.position - b.position).map((r) => r.id);
  }

  private async createVariants(tx: Tx, storeId: bigint, productId: bigint, input: ProductInput, now: Date) {
    const variants = variantsOf(input);
    const rows = await tx.productVariant.createManyAndReturn({
      data: variants.map((v, i) => ({
        productId,
        storeId,
        position: i + 1,
        sku: v.sku ?? '',
        title: v.title ?? '',
        createdAt: now,
        updatedAt: now,
      })),
      select: { id: true, position: true },
    });
    rows.sort((a, b) => a.position - b.position);
    const items = await tx.inventoryItem.createManyAndReturn({
      data: rows.map((row, i) => ({
        storeId,
        variantId: row.id,
        sku: variants[i]!.sku ?? '',
        cost: decimalText(variants[i]!.cost, '0.00'),
        tracked: variants[i]!.inventory_tracker ?? true,
        locationType: 'normal',
        createdAt: now,
        updatedAt: now,
      })),
      select: { id: true, variantId: true },
    });
    const itemByVariant = new Map(items.map((item) => [item.variantId, item.id]));
    return rows.map((row) => ({ id: row.id, inventoryItemId: itemByVariant.get(row.id)! }));
  }
}

export interface StoredParts {
  imageIds: bigint[];
  mediaIds: bigint[];
  optionIds: bigint[];
  variants: { id: bigint; inventoryItemId: bigint }[];
}
