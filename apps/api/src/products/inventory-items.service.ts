import { Injectable } from '@nestjs/common';
import type { InventoryItem, TransactionClient } from '@platform/db';
import type { InventoryItemChanges } from '@platform/domain';
import { StoresService } from '../stores/stores.service';
import { InventoryItemsRepository } from './inventory-items.repository';

/**
 * Inventory items for the inventory room (decisions §10): an operator's change of an item, written
 * in the caller's transaction (the one that also writes the change's webhook event, the outbox).
 */
@Injectable()
export class InventoryItemsService {
  constructor(
    private readonly repository: InventoryItemsRepository,
    private readonly stores: StoresService,
  ) {}

  /** The item changed by `merge` (which may throw to refuse), or null when it is not the store's. */
  async update(
    tx: TransactionClient,
    store: { id: bigint; ianaTimezone: string },
    id: bigint,
    merge: (row: InventoryItem) => InventoryItemChanges,
    now: Date,
  ): Promise<InventoryItem | null> {
    const written = await this.repository.update(tx, store, id, merge, now);
    if (!written) return null;
    // A new sku or tracked flag changed what the listing answers: cached pages go (ListingCache).
    if (written.stockChanged) await this.stores.bumpCatalogRevision(tx, store.id);
    return written.item;
  }
}
