export { createClient, resolveBaseUrl } from './client';
export type { ClientOptions, ListProductsOptions, PlatformClient, ProductPage, ProductsFor } from './client';
export { PlatformApiError, apiErrorFromResponse, parseRetryAfter } from './errors';
export { linksOf, paginate } from './pagination';
export type { PageLinks } from './pagination';
export type { ListedProduct, Product, ProductField, Shop } from '@platform/contract';
