export * from './format-in-zone';
export * from './parse-instant';
export * from './next-updated-at';
