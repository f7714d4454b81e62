export * from './versions';
export * from './clock';
export * from './time';
export * from './cursor';
export * from './pagination';
export * from './errors';
export * from './auth';
export * from './metafields';
export * from './signing';
// decisions §11.5 (the sender's retry schedule); the folder's other files are the subscription rules
export * from './webhooks/next-retry';
