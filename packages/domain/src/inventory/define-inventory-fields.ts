// The operator's inventory item fields (decisions §10). Constants only, so the contract states them
// in the OpenAPI document from this one source.

/** Cost per unit: non-negative decimal text, as products' variants take it. */
export const COST = /^\d{1,13}(\.\d{1,9})?$/;
export const LOCATION_TYPES = ['normal', 'fulfillment'] as const;
export const MAX_SKU = 255;
