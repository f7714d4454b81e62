export * from './build-link-header';
export * from './parse-link-header';
export * from './parse-page-params';
