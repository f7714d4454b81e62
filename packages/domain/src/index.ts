export * from './versions';
export * from './clock';
export * from './time';
export * from './cursor';
export * from './pagination';
export * from './errors';
export * from './auth';
export * from './metafields';
