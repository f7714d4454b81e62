import { z } from 'zod';
import { ZIsoTime, type OAuthRouteMetadata } from './common';
import { documented } from './openapi-json-schema';
import { c } from './router';

/** decisions §5.2: the token calls of custom and public apps, on the store's host, outside the versioned Admin API. */
export const OAUTH_PATH_PREFIX = '/admin/oauth';

/**
 * decisions §5.2: every token call is signed. `sign` is the lowercase hex HMAC-SHA256, keyed with
 * the app secret, of the raw body bytes followed by the `timestamp` text (`signTokenRequest` of
 * `@platform/domain`); the SDK computes it.
 */
export const ZOAuthHeaders = z.object({
  appkey: z.string().describe("The app's app_key."),
  timestamp: documented(z.string().describe('Milliseconds since the epoch; refused when more than 10 minutes from the service clock.'), {
    pattern: '^[0-9]{1,16}$',
  }),
  sign: documented(
    z
      .string()
      .describe('Lowercase hex HMAC-SHA256 keyed with the app secret over rawBody + timestamp (an empty body signs the timestamp alone).'),
    { pattern: '^[0-9a-f]{64}$' },
  ),
});
export type OAuthHeaders = z.infer<typeof ZOAuthHeaders>;

export const ZOAuthToken = z.object({
  accessToken: z.string().describe('Bearer token for the Admin API of this store; lives 10 hours.'),
  expireTime: ZIsoTime.describe('When the token expires, ISO 8601 with the store offset.'),
  scope: z.string().describe('The granted scopes, comma-separated, without read scopes a granted write scope implies.'),
});
export type OAuthToken = z.infer<typeof ZOAuthToken>;

/** decisions §5.2, byte for byte in its field names and types: `code` is the number 200. */
export const ZOAuthTokenResponse = z.object({
  code: z.literal(200),
  i18nCode: z.literal('SUCCESS'),
  message: z.string(),
  data: ZOAuthToken,
});
export type OAuthTokenResponse = z.infer<typeof ZOAuthTokenResponse>;

/** The cancel-authorization answer: the same envelope, no data. */
export const ZOAuthCancelResponse = z.object({
  code: z.literal(200),
  i18nCode: z.literal('SUCCESS'),
  message: z.string(),
  data: z.null(),
});
export type OAuthCancelResponse = z.infer<typeof ZOAuthCancelResponse>;

/** A refused token call: the envelope with the HTTP status as `code`, the reason as `message`. */
export const ZOAuthErrorResponse = z.object({
  code: z.number().int().describe('The HTTP status of the answer (400, 401, 402, 404, 413, 422, 423).'),
  i18nCode: z.string().describe('A stable code of the reason, e.g. INVALID_SIGNATURE, INVALID_GRANT, TOKEN_EXPIRED.'),
  message: z.string().describe('The reason, for a person.'),
  data: z.null(),
});
export type OAuthErrorResponse = z.infer<typeof ZOAuthErrorResponse>;

const oauthErrors = {
  400: ZOAuthErrorResponse.describe('A malformed body, or a code that is unknown, used, expired, or of another app or store.'),
  401: ZOAuthErrorResponse.describe('appkey unknown, sign wrong, timestamp more than 10 minutes off, or the token to refresh expired.'),
  402: ZOAuthErrorResponse.describe('Store frozen, or its plan expired.'),
  404: ZOAuthErrorResponse.describe('The store of the host is unknown, or the app is not installed on it.'),
  413: ZOAuthErrorResponse.describe('Request body over 4 KB (a token call carries `{"code"}` or no body).'),
  422: ZOAuthErrorResponse.describe('A well-formed body that breaks the schema.'),
  423: ZOAuthErrorResponse.describe('Store closed.'),
  500: ZOAuthErrorResponse.describe('A bug; the log has the traceId.'),
} as const;

const metadata = { auth: 'signed' } satisfies OAuthRouteMetadata;

export const oauthContract = c.router(
  {
    createOAuthToken: {
      method: 'POST',
      path: '/token/create',
      headers: ZOAuthHeaders,
      body: z.object({
        code: z.string().max(200).describe('The code of the redirect (or of the operator install call); single use, 10 minutes.'),
      }),
      responses: { 200: ZOAuthTokenResponse },
      summary: 'Exchange an authorization code for an access token',
      description: 'The code names the store; the token lives 10 hours and carries the scopes the merchant granted.',
      metadata,
    },
    refreshOAuthToken: {
      method: 'POST',
      path: '/token/refresh',
      headers: ZOAuthHeaders,
      body: c.noBody(),
      responses: { 200: ZOAuthTokenResponse },
      summary: "Refresh the app's token on the store of the Host",
      description:
        'Sent to the store host `{handle}.{PLATFORM_BASE_DOMAIN}` with an empty body, before the current token expires. ' +
        'The previous token stays valid exactly 5 more minutes.',
      metadata,
    },
    cancelOAuthToken: {
      method: 'POST',
      path: '/token/cancel',
      headers: ZOAuthHeaders,
      body: c.noBody(),
      responses: { 200: ZOAuthCancelResponse },
      summary: "Cancel the app's authorization on the store of the Host",
      description: 'Every token of the app on that store is invalid at once and the installation is removed.',
      metadata,
    },
  },
  { pathPrefix: OAUTH_PATH_PREFIX, commonResponses: oauthErrors },
);
