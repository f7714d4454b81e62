// The constants the contract states in the OpenAPI document (`@platform/domain/limits`): rules the
// domain's validators enforce, from files that import nothing heavy, so the SDK, which bundles the
// contract, does not carry the rule engine.
export * from './auth/define-scopes';
export { STORE_HANDLE } from './auth/resolve-host';
export * from './metafields/define-types';
export * from './metafields/define-rules';
export * from './metafields/define-definition-fields';
export { VALUE_FORMAT_IN_WORDS, valueSchemaOf } from './metafields/define-value-schemas';
export { decimalsUpTo } from './text/decimal-range-pattern';
export { APP_NAMESPACE_LOOKALIKE, APP_NAMESPACE_PREFIX } from './metafields/parse-namespace';
export { INSTANT, OUT_OF_STORED_RANGE_DATES } from './time/parse-instant';
export * from './webhooks/define-topics';
export * from './feedback/check-feedback-messages';
export * from './feedback/normalize-feedback-state';
export * from './inventory/define-inventory-fields';
export { FULFILLMENT_ORDER_STATUSES } from './inventory/release-fulfillment-order';
export { IDEMPOTENCY_KEY_MAX_LENGTH } from './idempotency/check-idempotency-key';
export { EMAIL, EMAIL_MAX_LENGTH, STORE_NAME } from './stores/check-store-input';
export { LIMIT_MAX, MAX_ID } from './pagination/parse-page-params';
export * from './products/define-product-fields';
