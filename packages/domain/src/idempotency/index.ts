export * from './check-idempotency-key';
export * from './decide-idempotent-repeat';
