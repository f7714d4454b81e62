import { Injectable } from '@nestjs/common';
import type { FulfillmentOrder, InventoryItem } from '@platform/db';
import { DomainError, formatInZone, inventoryItemObject, joinIssues, releaseFulfillmentOrder } from '@platform/domain';
import { ClockService } from '../core/clock.service';
import { pathId, toId } from '../http/ids';
import { StoresService } from '../stores/stores.service';
import { WebhookEventsRepository, type InventoryItemChanges } from './webhook-events.repository';

export interface InventoryItemInput {
  sku?: string | undefined;
  cost?: string | number | undefined;
  tracked?: boolean | undefined;
  location_type?: string | undefined;
  fulfillment_location_id?: string | number | null | undefined;
}

type Issue = { field: string; message: string };

/** Cost per unit: non-negative decimal text, as products' variants take it. */
const COST = /^\d{1,13}(\.\d{1,9})?$/;
const LOCATION_TYPES = ['normal', 'fulfillment'] as const;
const MAX_SKU = 255;

/** The checked changes of a PUT, without the rules that depend on the stored row. */
function changesOf(input: InventoryItemInput, issues: Issue[]): InventoryItemChanges {
  const changes: InventoryItemChanges = {};
  if (input.sku !== undefined) {
    if ([...input.sku].length > MAX_SKU) issues.push({ field: 'sku', message: `is too long (maximum is ${MAX_SKU} characters)` });
    else changes.sku = input.sku;
  }
  if (input.cost !== undefined) {
    const text = typeof input.cost === 'number' ? String(input.cost) : input.cost;
    if (!COST.test(text)) issues.push({ field: 'cost', message: 'must be a non-negative decimal number (at most 13 digits before the point and 9 after)' });
    else changes.cost = text;
  }
  if (input.tracked !== undefined) changes.tracked = input.tracked;
  if (input.location_type !== undefined) {
    if (!(LOCATION_TYPES as readonly string[]).includes(input.location_type)) {
      issues.push({ field: 'location_type', message: `is not included in the list (${LOCATION_TYPES.join(', ')})` });
    } else changes.locationType = input.location_type;
  }
  if (input.fulfillment_location_id !== undefined) {
    const raw = input.fulfillment_location_id;
    if (raw === null) changes.fulfillmentLocationId = null;
    else {
      const id = toId(String(raw));
      if (id === undefined || id === 0n) issues.push({ field: 'fulfillment_location_id', message: 'must be a positive decimal id' });
      else changes.fulfillmentLocationId = id;
    }
  }
  return changes;
}

/**
 * spec inventory item table: `fulfillment_location_id` applies only when `location_type` is
 * `fulfillment`, where it is required; moving to `normal` clears it.
 */
function locationRules(row: InventoryItem, changes: InventoryItemChanges): InventoryItemChanges {
  const locationType = changes.locationType ?? row.locationType;
  if (locationType === 'fulfillment') {
    const id = changes.fulfillmentLocationId !== undefined ? changes.fulfillmentLocationId : row.fulfillmentLocationId;
    if (id === null) throw new DomainError('VALIDATION_FAILED', "fulfillment_location_id: can't be blank when location_type is fulfillment");
    return changes;
  }
  if (changes.fulfillmentLocationId !== undefined && changes.fulfillmentLocationId !== null) {
    throw new DomainError('VALIDATION_FAILED', 'fulfillment_location_id: applies only when location_type is fulfillment');
  }
  return { ...changes, fulfillmentLocationId: null };
}

export function inventoryItemJson(row: InventoryItem, timeZone: string) {
  return inventoryItemObject(row, timeZone);
}

export function fulfillmentOrderJson(row: FulfillmentOrder, timeZone: string) {
  return {
    id: row.id.toString(),
    status: row.status as 'open' | 'released',
    created_at: formatInZone(row.createdAt, timeZone),
    updated_at: formatInZone(row.updatedAt, timeZone),
  };
}

/** decisions §10: the operator's changes that emit events (inventory items, fulfillment orders). */
@Injectable()
export class WebhookEventsService {
  constructor(
    private readonly repository: WebhookEventsRepository,
    private readonly stores: StoresService,
    private readonly clock: ClockService,
  ) {}

  async updateInventoryItem(handle: string, rawId: string, input: InventoryItemInput) {
    const store = await this.stores.get(handle);
    const id = pathId(rawId);
    const issues: Issue[] = [];
    const changes = changesOf(input, issues);
    if (issues.length > 0) throw new DomainError('VALIDATION_FAILED', joinIssues(issues));
    const row = await this.repository.updateInventoryItem(store, id, (current) => locationRules(current, changes), this.clock.now());
    if (!row) throw new DomainError('NOT_FOUND', 'Inventory item not found');
    return inventoryItemJson(row, store.ianaTimezone);
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
