import { isResourceId } from '../metafields/parse-scalars';
import { COST, LOCATION_TYPES, MAX_SKU } from './define-inventory-fields';

// The operator's inventory item update (decisions §10, spec inventory item table).

export interface InventoryItemInput {
  sku?: string | undefined;
  cost?: string | number | undefined;
  tracked?: boolean | undefined;
  location_type?: string | undefined;
  fulfillment_location_id?: string | number | null | undefined;
}

/** The columns an update writes (absent: unchanged). */
export interface InventoryItemChanges {
  sku?: string;
  cost?: string;
  tracked?: boolean;
  locationType?: string;
  fulfillmentLocationId?: bigint | null;
}

export interface InventoryItemLocation {
  locationType: string;
  fulfillmentLocationId: bigint | null;
}

type Issue = { field: string; message: string };

export { LOCATION_TYPES };

/** The checked changes of an update, before the rules that depend on the stored row; every bad field named. */
export function checkInventoryItemInput(
  input: InventoryItemInput,
): { ok: true; value: InventoryItemChanges } | { ok: false; issues: Issue[] } {
  const issues: Issue[] = [];
  const changes: InventoryItemChanges = {};
  if (input.sku !== undefined) {
    if ([...input.sku].length > MAX_SKU) issues.push({ field: 'sku', message: `is too long (maximum is ${MAX_SKU} characters)` });
    else changes.sku = input.sku;
  }
  if (input.cost !== undefined) {
    const text = typeof input.cost === 'number' ? String(input.cost) : input.cost;
    if (!COST.test(text))
      issues.push({ field: 'cost', message: 'must be a non-negative decimal number (at most 13 digits before the point and 9 after)' });
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
    // A JSON number past 2^53 - 1 was already rounded by the parser (9007199254740993 arrives as
    // ...992): refused rather than stored as another id. Larger ids travel as strings.
    else if (typeof raw === 'number' && !Number.isSafeInteger(raw))
      issues.push({ field: 'fulfillment_location_id', message: 'must be an id: send ids past 9007199254740991 as a string' });
    else if (!isResourceId(String(raw))) issues.push({ field: 'fulfillment_location_id', message: 'must be a positive decimal id' });
    else changes.fulfillmentLocationId = BigInt(raw);
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: changes };
}

/**
 * spec inventory item table: `fulfillment_location_id` applies only when `location_type` is
 * `fulfillment`, where it is required; moving to `normal` clears it. Decided on the row as it will
 * be written (the stored row under its lock, plus the changes).
 */
export function applyLocationRules(
  row: InventoryItemLocation,
  changes: InventoryItemChanges,
): { ok: true; value: InventoryItemChanges } | { ok: false; message: string } {
  const locationType = changes.locationType ?? row.locationType;
  if (locationType === 'fulfillment') {
    const id = changes.fulfillmentLocationId !== undefined ? changes.fulfillmentLocationId : row.fulfillmentLocationId;
    if (id === null) return { ok: false, message: "fulfillment_location_id: can't be blank when location_type is fulfillment" };
    return { ok: true, value: changes };
  }
  if (changes.fulfillmentLocationId !== undefined && changes.fulfillmentLocationId !== null) {
    return { ok: false, message: 'fulfillment_location_id: applies only when location_type is fulfillment' };
  }
  return { ok: true, value: { ...changes, fulfillmentLocationId: null } };
}
