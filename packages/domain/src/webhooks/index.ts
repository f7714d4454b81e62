export * from './classify-ip';
export * from './check-address';
export * from './define-topics';
export * from './render-payload';
export * from './release-fulfillment-order';
export * from './next-retry';
export * from './plan-claims';
