export * from './list-releases';
export * from './resolve-version';
export * from './compare-version';
