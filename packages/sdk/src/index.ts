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
export type * from '@platform/contract';
export { verifyWebhook, webhookErrorAnswer, WebhookVerificationError, BODY_ALREADY_PARSED_MESSAGE } from './webhooks';
export type { HeadersLike, PayloadSchemasOf, VerifiedWebhook, WebhookFailure, WebhookPayload, WebhookTopic } from './webhooks';
export { createOAuth, OAuthError } from './oauth';
export type { AuthorizeUrlInput, OAuthFailure, OAuthOptions, PlatformOAuth, VerifiedCallback } from './oauth';
export { memoryTokenStore } from './token-store';
export type { SharedTokenStore, StoredToken, TokenStore } from './token-store';
