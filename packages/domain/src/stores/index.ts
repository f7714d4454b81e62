export * from './check-store-input';
