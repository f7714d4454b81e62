import { decimalText, renderProductDocument, slugify, variantsOf, type ProductIds, type ProductInput } from './product-document';
import { renderListingDocument } from './product-listing';

/** Which parts of a product a write (re)creates; a create makes them all, a PATCH those it names. */
export interface PartsToWrite {
  images: boolean;
  media: boolean;
  options: boolean;
  variants: boolean;
}

export const ALL_PARTS: PartsToWrite = { images: true, media: true, options: true, variants: true };

/** How many rows of each part the products' inputs make: the ids to reserve before writing. */
export function countParts(inputs: readonly ProductInput[], parts: PartsToWrite = ALL_PARTS) {
  let options = 0;
  let images = 0;
  let media = 0;
  let variants = 0;
  for (const input of inputs) {
    if (parts.options) options += input.options?.length ?? 0;
    if (parts.images) images += input.images?.length ?? 0;
    if (parts.media) media += input.media?.length ?? 0;
    if (parts.variants) variants += variantsOf(input).length;
  }
  return { options, images, media, variants };
}

/** Reserved ids, handed out in input order (`take` moves along each list). */
export interface IdPool {
  options: bigint[];
  images: bigint[];
  media: bigint[];
  variants: bigint[];
  items: bigint[];
}

function taker(pool: IdPool) {
  const at = { options: 0, images: 0, media: 0, variants: 0, items: 0 };
  return (kind: keyof IdPool, count: number): bigint[] => {
    const ids = pool[kind].slice(at[kind], at[kind] + count);
    at[kind] += count;
    return ids;
  };
}

/** The rows of one product's parts, ids taken from the pool; the parts not written keep `kept`'s ids. */
function partRows(
  storeId: bigint,
  productId: bigint,
  input: ProductInput,
  take: (kind: keyof IdPool, count: number) => bigint[],
  now: Date,
  parts: PartsToWrite,
  kept?: Omit<ProductIds, 'productId'>,
) {
  const variantInputs = variantsOf(input);
  const ids: ProductIds = {
    productId,
    optionIds: parts.options ? take('options', input.options?.length ?? 0) : kept!.optionIds,
    imageIds: parts.images ? take('images', input.images?.length ?? 0) : kept!.imageIds,
    mediaIds: parts.media ? take('media', input.media?.length ?? 0) : kept!.mediaIds,
    variants: parts.variants
      ? take('variants', variantInputs.length).map((id) => ({ id, inventoryItemId: take('items', 1)[0]! }))
      : kept!.variants,
  };
  const options = parts.options ? (input.options ?? []).map((o, i) => [ids.optionIds[i]!, productId, i + 1, o.name]) : [];
  const images = parts.images
    ? (input.images ?? []).map((image, i) => [ids.imageIds[i]!, productId, i + 1, image.src, image.alt ?? ''])
    : [];
  const media = parts.media
    ? (input.media ?? []).map((m, i) => [
        ids.mediaIds[i]!,
        productId,
        i + 1,
        m.src,
        m.alt ?? '',
        m.caption ?? '',
        m.content_type ?? 'IMAGE',
      ])
    : [];
  const variants = parts.variants
    ? variantInputs.map((v, i) => [ids.variants[i]!.id, productId, storeId, i + 1, v.sku ?? '', v.title ?? '', now, now])
    : [];
  const items = parts.variants
    ? variantInputs.map((v, i) => [
        ids.variants[i]!.inventoryItemId,
        storeId,
        ids.variants[i]!.id,
        v.sku ?? '',
        decimalText(v.cost, '0.00'),
        v.inventory_tracker ?? true,
        'normal',
        now,
        now,
      ])
    : [];
  return { ids, options, images, media, variants, items };
}

/** The columns of each table, in the order the rows above hold their values. */
export const COLUMNS = {
  products: [
    'id',
    'store_id',
    'title',
    'handle',
    'status',
    'doc',
    'listing_doc',
    'listing_zone',
    'published_at',
    'created_at',
    'updated_at',
  ],
  product_options: ['id', 'product_id', 'position', 'name'],
  product_images: ['id', 'product_id', 'position', 'src', 'alt'],
  product_media: ['id', 'product_id', 'position', 'src', 'alt', 'caption', 'content_type'],
  product_variants: ['id', 'product_id', 'store_id', 'position', 'sku', 'title', 'created_at', 'updated_at'],
  inventory_items: ['id', 'store_id', 'variant_id', 'sku', 'cost', 'tracked', 'location_type', 'created_at', 'updated_at'],
} as const;

type Parts = ReturnType<typeof partRows>;

/** The rows of several products' parts, merged per table. */
function mergeParts(all: Parts[]): Record<'options' | 'images' | 'media' | 'variants' | 'items', unknown[][]> {
  return {
    options: all.flatMap((p) => p.options),
    images: all.flatMap((p) => p.images),
    media: all.flatMap((p) => p.media),
    variants: all.flatMap((p) => p.variants),
    items: all.flatMap((p) => p.items),
  };
}

/**
 * Every row of a bulk create, from the inputs and the reserved ids: each product's document and its
 * listing document (the bytes the listing sends, in the store's zone) rendered once, here; `listing`
 * holds those bytes (stored as they are, and the answer).
 */
export function buildProductRows(
  store: { id: bigint; ianaTimezone: string },
  inputs: readonly ProductInput[],
  productIds: bigint[],
  pool: IdPool,
  now: Date,
) {
  const take = taker(pool);
  const products: unknown[][] = [];
  const listing: Buffer[] = [];
  const parts: Parts[] = [];
  for (let k = 0; k < inputs.length; k++) {
    const input = inputs[k]!;
    const id = productIds[k]!;
    const part = partRows(store.id, id, input, take, now, ALL_PARTS);
    parts.push(part);
    const doc = renderProductDocument(input, part.ids);
    const publishedAt = input.published_at ? new Date(input.published_at) : (input.status ?? 'active') === 'active' ? now : null;
    const text = renderListingDocument({ id, doc, published_at: publishedAt, created_at: now, updated_at: now }, store.ianaTimezone);
    const bytes = Buffer.from(text);
    listing.push(bytes);
    products.push([
      id,
      store.id,
      input.title,
      input.handle || slugify(input.title),
      input.status ?? 'active',
      doc,
      bytes,
      store.ianaTimezone,
      publishedAt,
      now,
      now,
    ]);
  }
  return { products, listing, ...mergeParts(parts) };
}

/** The rows of the parts a PATCH replaces (fresh ids from the pool); the other parts keep `kept`'s ids. */
export function buildReplacedParts(
  storeId: bigint,
  productId: bigint,
  input: ProductInput,
  pool: IdPool,
  now: Date,
  parts: PartsToWrite,
  kept: Omit<ProductIds, 'productId'>,
) {
  const part = partRows(storeId, productId, input, taker(pool), now, parts, kept);
  return { ids: part.ids, ...mergeParts([part]) };
}
