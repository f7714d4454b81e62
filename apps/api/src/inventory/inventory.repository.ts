import { Injectable } from '@nestjs/common';
import { inOutboxTransaction, type Db, type EmitWebhookEvent, type FulfillmentOrder, type InventoryItem } from '@platform/db';
import {
  hasScope,
  nextUpdatedAt,
  type InventoryItemChanges,
  renderFulfillmentOrderWebhook,
  renderInventoryItemWebhook,
  WEBHOOK_TOPIC_SCOPE,
  type WebhookTopic,
} from '@platform/domain';
import { InjectDb } from '../core/injection';
import { writeVariantStockFields } from '../products/variant-stock-fields';

export interface EventStore {
  id: bigint;
  ianaTimezone: string;
}

/** Why a release did not happen: the order is not there, or not open. */
export type ReleaseOutcome =
  { ok: true; order: FulfillmentOrder } | { ok: false; reason: 'missing' } | { ok: false; reason: 'status'; status: string };

/**
 * Inventory items and fulfillment orders (decisions §10). A change that emits an event writes the
 * change and its deliveries in one transaction (the outbox, decisions §11.6): the change is never
 * written without its events, nor an event without its change. The senders are woken when it commits.
 */
@Injectable()
export class InventoryRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  /**
   * `merge` runs on the row as it will be written (inside the transaction, after the row's lock is
   * taken) and may throw to refuse the change. Null when the item is not the store's.
   */
  updateInventoryItem(
    store: EventStore,
    id: bigint,
    merge: (row: InventoryItem) => InventoryItemChanges,
    now: Date,
  ): Promise<InventoryItem | null> {
    return inOutboxTransaction(this.db, async (tx, emitEvent) => {
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
      const updated = await tx.inventoryItem.update({
        where: { id },
        data: { ...changes, updatedAt: nextUpdatedAt(row.updatedAt, now) },
      });
      // The variant's sku and inventory_tracker are the item's: the listing shows what the event says.
      if (updated.sku !== row.sku || updated.tracked !== row.tracked) {
        const variant = { id: updated.variantId, productId: owner.variant.productId };
        await writeVariantStockFields(tx, store, variant, { sku: updated.sku, tracked: updated.tracked }, now);
      }
      await emit(emitEvent, store, 'inventory_items/update', now, (apiVersion) =>
        renderInventoryItemWebhook(updated, { apiVersion, timeZone: store.ianaTimezone }),
      );
      return updated;
    });
  }

  createFulfillmentOrder(storeId: bigint, now: Date): Promise<FulfillmentOrder> {
    return this.db.prisma.fulfillmentOrder.create({ data: { storeId, status: 'open', createdAt: now, updatedAt: now } });
  }

  /**
   * open -> released, as one conditional write: of two releases at once exactly one succeeds and
   * emits `fulfillment_order/released`; the other sees the order no longer open.
   */
  releaseFulfillmentOrder(store: EventStore, id: bigint, now: Date): Promise<ReleaseOutcome> {
    return inOutboxTransaction(this.db, async (tx, emitEvent) => {
      const current = await tx.fulfillmentOrder.findFirst({ where: { id, storeId: store.id } });
      if (!current) return { ok: false, reason: 'missing' } as const;
      const moved = await tx.fulfillmentOrder.updateMany({
        where: { id, storeId: store.id, status: 'open' },
        data: { status: 'released', updatedAt: nextUpdatedAt(current.updatedAt, now) },
      });
      if (moved.count === 0) {
        const latest = await tx.fulfillmentOrder.findFirst({ where: { id } });
        return { ok: false, reason: 'status', status: latest?.status ?? current.status } as const;
      }
      const order = await tx.fulfillmentOrder.findUniqueOrThrow({ where: { id } });
      await emit(emitEvent, store, 'fulfillment_order/released', now, (apiVersion) =>
        renderFulfillmentOrderWebhook(order, { apiVersion, timeZone: store.ianaTimezone }),
      );
      return { ok: true, order } as const;
    });
  }
}

function emit(
  emitEvent: EmitWebhookEvent,
  store: EventStore,
  topic: WebhookTopic,
  now: Date,
  render: (apiVersion: string) => string,
): Promise<number> {
  return emitEvent({
    storeId: store.id,
    topic,
    now,
    render,
    appMayReceive: (scopes) => hasScope(scopes, WEBHOOK_TOPIC_SCOPE[topic]),
  });
}
