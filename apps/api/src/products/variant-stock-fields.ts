import type { TransactionClient } from '@platform/db';
import { nextUpdatedAt } from '@platform/domain';
import { renderListingDocument } from './product-listing';

/**
 * A variant's `sku` and `inventory_tracker` are its inventory item's `sku` and `tracked` (the spec's
 * inventory item). A change of the item made through the operator API (decisions §10) is written into
 * the variant row and the product's stored documents in the same transaction, so the listing shows
 * what the `inventory_items/update` event says. The product's `updated_at` moves (its variant
 * changed; the listing-documents worker, which writes only over an unchanged `updated_at`, cannot put
 * back a document rendered before); InventoryItemsService moves the store's catalog revision (cached pages).
 */
export async function writeVariantStockFields(
  tx: TransactionClient,
  store: { id: bigint; ianaTimezone: string },
  variant: { id: bigint; productId: bigint },
  item: { sku: string | null; tracked: boolean },
  now: Date,
): Promise<void> {
  await tx.productVariant.update({ where: { id: variant.id }, data: { sku: item.sku } });
  const product = await tx.product.findUnique({
    where: { id: variant.productId },
    select: { doc: true, publishedAt: true, createdAt: true, updatedAt: true },
  });
  if (!product) return;
  const doc = JSON.parse(product.doc) as { variants?: { id: string; sku: string; inventory_tracker: boolean }[] };
  const entry = doc.variants?.find((v) => v.id === variant.id.toString());
  if (!entry) return;
  entry.sku = item.sku ?? '';
  entry.inventory_tracker = item.tracked;
  const text = JSON.stringify(doc);
  const updatedAt = nextUpdatedAt(product.updatedAt, now);
  const listing = renderListingDocument(
    { id: variant.productId, doc: text, published_at: product.publishedAt, created_at: product.createdAt, updated_at: updatedAt },
    store.ianaTimezone,
  );
  await tx.product.update({
    where: { id: variant.productId },
    data: { doc: text, listingDoc: Buffer.from(listing), listingZone: store.ianaTimezone, updatedAt },
    select: { id: true },
  });
}
