import { Injectable } from '@nestjs/common';
import type { InventoryItem, TransactionClient } from '@platform/db';
import { nextUpdatedAt, type InventoryItemChanges } from '@platform/domain';
import { writeVariantStockFields } from './variant-stock-fields';

/** An item changed, and whether the variant's copy of its sku or tracked flag was rewritten with it. */
export interface ItemWritten {
  item: InventoryItem;
  stockChanged: boolean;
}

/** Inventory items: made and removed with their variants (ProductsRepository), changed here (decisions §10). */
@Injectable()
export class InventoryItemsRepository {
  /**
   * Changes an item of the store in `tx`. `merge` runs on the row as it will be written (after the
   * row's lock is taken) and may throw to refuse the change. Null when the item is not the store's.
   */
  async update(
    tx: TransactionClient,
    store: { id: bigint; ianaTimezone: string },
    id: bigint,
    merge: (row: InventoryItem) => InventoryItemChanges,
    now: Date,
  ): Promise<ItemWritten | null> {
    // The item's product is locked before the item (writes that change nothing), in the order a
    // product's replacement takes them (the product, then its variants' items), so the two never
    // wait for each other (a deadlock on PostgreSQL); a change of sku or tracked rewrites the product.
    const owner = await tx.inventoryItem.findFirst({
      where: { id, storeId: store.id },
      select: { variant: { select: { productId: true } } },
    });
    if (!owner) return null;
    await tx.$executeRaw`UPDATE products SET updated_at = updated_at WHERE id = ${owner.variant.productId}`;
    // Then the item, so concurrent updates read one after the other and each moves updated_at past
    // the last (the same SQL on SQLite and PostgreSQL). Gone meanwhile (its variant replaced): null.
    const locked = await tx.$executeRaw`UPDATE inventory_items SET updated_at = updated_at WHERE id = ${id} AND store_id = ${store.id}`;
    if (locked === 0) return null;
    const row = await tx.inventoryItem.findUniqueOrThrow({ where: { id } });
    const changes = merge(row);
    const item = await tx.inventoryItem.update({
      where: { id },
      data: { ...changes, updatedAt: nextUpdatedAt(row.updatedAt, now) },
    });
    // The variant's sku and inventory_tracker are the item's: the listing shows what the event says.
    const stockChanged = item.sku !== row.sku || item.tracked !== row.tracked;
    if (stockChanged) {
      const variant = { id: item.variantId, productId: owner.variant.productId };
      await writeVariantStockFields(tx, store, variant, { sku: item.sku, tracked: item.tracked }, now);
    }
    return { item, stockChanged };
  }
}
