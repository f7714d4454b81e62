export * from './check-inventory-item';
export * from './release-fulfillment-order';
