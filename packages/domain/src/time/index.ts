export * from './format-in-zone';
export * from './parse-instant';
