export * from './define-scopes';
export * from './compute-token-expiry';
export * from './hash-token';
export * from './resolve-host';
export * from './check-grant';
export * from './check-redirect-url';
export * from './check-store-status';
