import { Injectable } from '@nestjs/common';
import {
  inOutboxTransaction,
  type Db,
  type EmitWebhookEvent,
  type FulfillmentOrder,
  type InventoryItem,
  type TransactionClient,
} from '@platform/db';
import {
  hasScope,
  nextUpdatedAt,
  renderFulfillmentOrderWebhook,
  renderInventoryItemWebhook,
  WEBHOOK_TOPIC_SCOPE,
  type WebhookTopic,
} from '@platform/domain';
import { InjectDb } from '../core/injection';

export interface EventStore {
  id: bigint;
  ianaTimezone: string;
}

/** Why a release did not happen: the order is not there, or not open. */
export type ReleaseOutcome =
  { ok: true; order: FulfillmentOrder } | { ok: false; reason: 'missing' } | { ok: false; reason: 'status'; status: string };

/**
 * Fulfillment orders, and the events of inventory items (decisions §10). A change that emits an event writes the
 * change and its deliveries in one transaction (the outbox, decisions §11.6): the change is never
 * written without its events, nor an event without its change. The senders are woken when it commits.
 */
@Injectable()
export class InventoryRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  /**
   * The change of an item, made by `write` in the transaction that also writes its event (the item
   * is the products room's: InventoryService hands its InventoryItemsService call in here). Null,
   * and no event, when the item is not the store's.
   */
  updateInventoryItem(
    store: EventStore,
    write: (tx: TransactionClient) => Promise<InventoryItem | null>,
    now: Date,
  ): Promise<InventoryItem | null> {
    return inOutboxTransaction(this.db, async (tx, emitEvent) => {
      const updated = await write(tx);
      if (!updated) return null;
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
