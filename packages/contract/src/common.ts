import { z } from 'zod';
import { SCOPES } from '@platform/domain/scopes';
import { documented } from './openapi-json-schema';
import { ID_RULES, LIMIT_RULES, PAGE_INFO_RULES } from './rules';

/** Every Admin API path is `/admin/openapi/{version}/...` (decisions §1.1); the server resolves the version. */
export const ADMIN_PATH_PREFIX = '/admin/openapi/:version';
/** decisions §10. */
export const OPERATOR_PATH_PREFIX = '/platform/v1';

/** decisions §4: every failure answers `{"errors": "<one human-readable message>"}`. */
export const ZErrorBody = z.object({
  errors: z.string().describe('One human-readable message; several problems are joined with "; ", field name first.'),
});
export type ErrorBody = z.infer<typeof ZErrorBody>;

/**
 * One schema per status, so the OpenAPI document says when each is used (decisions §4). The body is
 * the same everywhere, which is what lets the SDK type its errors once.
 */
export const commonResponses = {
  400: ZErrorBody.describe('Malformed JSON, wrong Content-Type, or a bad query parameter (limit not 1..1000, tampered page_info).'),
  401: ZErrorBody.describe(
    'Access token missing, unknown, expired (message contains "expired"), revoked, or presented on another store\'s host.',
  ),
  402: ZErrorBody.describe('Store frozen, or its plan expired.'),
  403: ZErrorBody.describe("The token lacks the required scope (the message names it), or the definition's access forbids the action."),
  404: ZErrorBody.describe('Unknown route, API version or resource, or a resource the caller may not see.'),
  413: ZErrorBody.describe('Request body over 8 MB.'),
  422: ZErrorBody.describe('A well-formed body that breaks a rule.'),
  423: ZErrorBody.describe('Store closed.'),
  429: ZErrorBody.describe('Rate limited; see the Retry-After header (whole seconds).'),
  500: ZErrorBody.describe('A bug; the body says only "Internal Server Error" and the log has the traceId.'),
} as const;

/**
 * The operator API's (decisions §10): no rate limit, no store status, no scopes, so no 402, 403, 423
 * or 429 (its keyed POSTs add the 429 of the kept-answers quota, docs/idempotency.md).
 */
export const operatorResponses = {
  400: commonResponses[400],
  401: ZErrorBody.describe('The operator token is missing or wrong; the operator API answers nothing else without it.'),
  404: commonResponses[404],
  413: commonResponses[413],
  422: commonResponses[422],
  500: commonResponses[500],
} as const;

/** decisions §3.5: ids are decimal strings of increasing integers. */
export const ZId = z.string().regex(/^\d+$/, 'must be a decimal id');

/**
 * The query parameters of every paginated read (decisions §6). Strings on the wire, parsed by the
 * server, which owns the 400 messages; the document states their rules. `defaultLimit`: the listing's
 * page when `limit` is not given.
 */
export function pageQuery(query: () => z.ZodString = () => z.string(), defaultLimit = 50) {
  return {
    limit: documented(query(), LIMIT_RULES).optional().describe(`Records per page, 1..1000, default ${defaultLimit}.`),
    since_id: documented(query(), ID_RULES).optional().describe('First-page mode: records whose id is greater than this. Default 0.'),
    page_info: documented(query(), PAGE_INFO_RULES).optional(),
  };
}

/** decisions §6.4. */
export const FIELDS_DESCRIPTION = 'Comma-separated top-level field names; unknown names are ignored, id is always included.';

/** decisions §3.3: ISO 8601 with an offset or `Z` (responses use the store's offset, second precision). */
export const ZIsoTime = z.string().datetime({ offset: true, message: 'must be an ISO 8601 time with an offset or Z' });

/** Money, weights and the like travel as decimal text so no precision is lost. */
export const ZDecimal = z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a decimal string');

/** decisions §5.5: the scopes, listed once in the domain. */
export const ZScope = z.enum(SCOPES);
export type Scope = z.infer<typeof ZScope>;

/** decisions §10: frozen answers 402, closed 423 (decisions §5.6). */
export const ZStoreStatus = z.enum(['active', 'frozen', 'closed']);
export type StoreStatus = z.infer<typeof ZStoreStatus>;

/** Read by the server's access guard: app tokens with a scope on the Admin API, the operator token on the operator API. */
/** `scope` is required; `alsoScopes` are further scopes the route needs (values on products need both sides, decisions §5.5). */
/** `orScopes`: alternatives to `scope`, any one of them suffices (webhook routes: the route's own rules check the topic's scope). */
export type AdminRouteMetadata = {
  auth: 'app';
  scope: Scope;
  alsoScopes?: readonly Scope[];
  orScopes?: readonly Scope[];
  paginated?: true;
};
/** `paginated`: the answer carries a `link` header while more records exist (decisions §6.3). */
export type OperatorRouteMetadata = { auth: 'operator'; paginated?: true };
/** decisions §5.2: the OAuth token calls, signed with the app secret (headers appkey, timestamp, sign). */
export type OAuthRouteMetadata = { auth: 'signed' };
