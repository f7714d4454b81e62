export * from './define-product-fields';
