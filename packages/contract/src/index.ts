export * from './common';
export * from './products.contract';
export * from './shop.contract';
export * from './operator.contract';
export * from './metafield-definitions.contract';
export * from './metafields.contract';
export * from './contract';
export * from './openapi';
