import { Injectable } from '@nestjs/common';
import type { FulfillmentOrder } from '@platform/db';
import {
  applyLocationRules,
  checkInventoryItemInput,
  DomainError,
  formatInZone,
  inventoryItemObject,
  joinIssues,
  releaseFulfillmentOrder,
  type InventoryItemInput,
} from '@platform/domain';
import { ClockService } from '../core/clock.service';
import { pathId } from '../http/ids';
import { InventoryItemsService } from '../products/inventory-items.service';
import { StoresService } from '../stores/stores.service';
import { InventoryRepository } from './inventory.repository';

function fulfillmentOrderJson(row: FulfillmentOrder, timeZone: string) {
  return {
    id: row.id.toString(),
    status: row.status as 'open' | 'released',
    created_at: formatInZone(row.createdAt, timeZone),
    updated_at: formatInZone(row.updatedAt, timeZone),
  };
}

/**
 * decisions §10: the operator's changes to inventory items and fulfillment orders. Each emits its
 * webhook event in the change's own transaction (the repository writes both through the outbox).
 */
@Injectable()
export class InventoryService {
  constructor(
    private readonly repository: InventoryRepository,
    private readonly stores: StoresService,
    private readonly items: InventoryItemsService,
    private readonly clock: ClockService,
  ) {}

  async updateInventoryItem(handle: string, rawId: string, input: InventoryItemInput) {
    const store = await this.stores.get(handle);
    const id = pathId(rawId);
    const checked = checkInventoryItemInput(input);
    if (!checked.ok) throw new DomainError('VALIDATION_FAILED', joinIssues(checked.issues));
    const merge = (current: Parameters<typeof applyLocationRules>[0]) => {
      const result = applyLocationRules(current, checked.value);
      if (!result.ok) throw new DomainError('VALIDATION_FAILED', result.message);
      return result.value;
    };
    const now = this.clock.now();
    // The item is the products room's; its change and the event are written in one transaction.
    const row = await this.repository.updateInventoryItem(store, (tx) => this.items.update(tx, store, id, merge, now), now);
    if (!row) throw new DomainError('NOT_FOUND', 'Inventory item not found');
    return inventoryItemObject(row, store.ianaTimezone);
  }

  async createFulfillmentOrder(handle: string) {
    const store = await this.stores.get(handle);
    const row = await this.repository.createFulfillmentOrder(store.id, this.clock.now());
    return fulfillmentOrderJson(row, store.ianaTimezone);
  }

  async releaseFulfillmentOrder(handle: string, rawId: string) {
    const store = await this.stores.get(handle);
    const outcome = await this.repository.releaseFulfillmentOrder(store, pathId(rawId), this.clock.now());
    if (outcome.ok) return fulfillmentOrderJson(outcome.order, store.ianaTimezone);
    if (outcome.reason === 'missing') throw new DomainError('NOT_FOUND', 'Fulfillment order not found');
    const refusal = releaseFulfillmentOrder(outcome.status);
    throw new DomainError('VALIDATION_FAILED', refusal.ok ? 'status: the fulfillment order changed meanwhile; try again' : refusal.message);
  }
}
