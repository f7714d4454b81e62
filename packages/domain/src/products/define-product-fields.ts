// The operator's product input (decisions §10). Constants only, so the contract states them in the
// OpenAPI document from this one source.

/** Prices, weights and costs: at most 13 integer and 9 fraction digits, an optional leading `-`. */
export const PRODUCT_DECIMAL = /^-?\d{1,13}(\.\d{1,9})?$/;
/** Titles make handles of at most 255 characters; a handle given must fit the same bound. */
export const MAX_PRODUCT_HANDLE = 255;
/** decisions §10: one product, or up to 1,000 at once. */
export const MAX_PRODUCTS_PER_CREATE = 1000;
