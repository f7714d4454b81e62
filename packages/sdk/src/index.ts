export { createClient, resolveBaseUrl } from './client';
export type { ClientOptions, ListProductsOptions, PlatformClient, ProductPage, ProductsFor } from './client';
export { createRouterMethods, createAdminMethods, routeUrl } from './routes';
export type {
  AdminContract,
  AdminMethods,
  BodyArgs,
  CallOptions,
  Page,
  PageItem,
  PaginatedExtras,
  PathArgs,
  QueryArgs,
  RouteArgs,
  RouteMethod,
  RouteResult,
  RouterMethods,
  SuccessBody,
} from './routes';
export {
  PlatformError,
  PlatformApiError,
  PlatformNetworkError,
  PlatformTimeoutError,
  apiErrorFromResponse,
  parseRetryAfter,
} from './errors';
export type { RequestIdentity } from './errors';
export { linksOf, paginate, pageRef } from './pagination';
export type { PageLinks, PageRef } from './pagination';
export { createLeakyBucket } from './limiter';
export type { LeakyBucket, RateLimitOptions, ThrottleInfo } from './limiter';
export { systemClock } from './clock';
export { SDK_VERSION, userAgent } from './user-agent';
export type { Clock } from './clock';
export type { Logger, RetryOptions, SdkEvent, TransportOptions } from './transport';
export { versionStatus, deprecationNotice, DEPRECATION_NOTICE_DAYS } from './versions';
export type { VersionStatus } from './versions';
export { adminContract } from '@platform/contract';
// The contract's types, by name: `export type *` came out of the declaration roll-up as value exports
// that the bundle does not carry (a `ZShop` that compiled and was undefined at run time). The SDK's
// own `WebhookTopic` (./webhooks) is the contract's, narrowed to what verifyWebhook accepts.
export type {
  AccessAdmin,
  AccessToken,
  AdminRouteMetadata,
  AppCreate,
  AppKind,
  ClockSet,
  DeliveryStatus,
  ErrorBody,
  FulfillmentOrderWebhook,
  InventoryItem,
  InventoryItemUpdate,
  InventoryItemWebhook,
  ListDeliveriesQuery,
  ListMetafieldDefinitionsQuery,
  ListMetafieldsQuery,
  ListProductsQuery,
  ListWebhooksQuery,
  ListedMetafield,
  ListedMetafieldDefinition,
  ListedProduct,
  ListedWebhook,
  Metafield,
  MetafieldDefinition,
  MetafieldDefinitionField,
  MetafieldDefinitionInput,
  MetafieldDefinitionUpdate,
  MetafieldInput,
  MetafieldSetEntry,
  MetafieldUpdate,
  MetafieldsSet,
  Metaobject,
  MetaobjectDefinition,
  OAuthCancelResponse,
  OAuthErrorResponse,
  OAuthHeaders,
  OAuthRouteMetadata,
  OAuthToken,
  OAuthTokenResponse,
  OperatorApp,
  OperatorFulfillmentOrder,
  OperatorMetafield,
  OperatorMetafieldsQuery,
  OperatorResourceFeedback,
  OperatorRouteMetadata,
  OperatorStore,
  OwnerResource,
  Product,
  ProductField,
  ProductImage,
  ProductInput,
  ProductMedia,
  ProductOption,
  ProductsCreate,
  ResourceFeedback,
  ResourceFeedbackCreate,
  ResourceFeedbackInput,
  Scope,
  Shop,
  StoreCreate,
  StoreStatus,
  StoreUpdate,
  ValidationRule,
  Variant,
  VariantInput,
  Webhook,
  WebhookAttempt,
  WebhookCreate,
  WebhookDelivery,
  WebhookPayloads,
  WebhookStatus,
  WebhookUpdate,
} from '@platform/contract';
export { verifyWebhook, webhookErrorAnswer, WebhookVerificationError, BODY_ALREADY_PARSED_MESSAGE } from './webhooks';
export type { HeadersLike, PayloadSchemasOf, VerifiedWebhook, WebhookFailure, WebhookPayload, WebhookTopic } from './webhooks';
export { createOAuth, OAuthError } from './oauth';
export type { AuthorizeUrlInput, OAuthFailure, OAuthOptions, PlatformOAuth, VerifiedCallback } from './oauth';
export { memoryTokenStore } from './token-store';
export type { SharedTokenStore, StoredToken, TokenStore } from './token-store';
