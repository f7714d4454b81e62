import type { AppRoute } from '@ts-rest/core';
import { contract } from './contract';
import { ZOAuthHeaders, ZOAuthTokenResponse } from './oauth.contract';

/*
 * What a client generated from /openapi.json (openapi-typescript + openapi-fetch, openapi-generator,
 * oapi-codegen ...) cannot take from the schemas and must do by hand, stated in the document itself
 * (issue 46). Names come from the contract, so the text follows it: the paginated operations, the
 * token calls, their headers and their envelope.
 */

const routes = (group: Record<string, AppRoute>) => Object.entries(group);
const code = (names: readonly string[]) => names.map((n) => `\`${n}\``).join(', ');

/** The operations whose 200 answer carries a `link` header (metadata `paginated`, decisions §6.3). */
export const PAGINATED_OPERATIONS = [...routes(contract.admin), ...routes(contract.operator)]
  .filter(([, route]) => (route.metadata as { paginated?: boolean } | undefined)?.paginated === true)
  .map(([operationId]) => operationId);

/** The signed token calls of decisions §5.2, by operationId. */
export const TOKEN_OPERATIONS = Object.keys(contract.oauth);

const SIGN_HEADERS = Object.keys(ZOAuthHeaders.shape);
const ENVELOPE = Object.keys(ZOAuthTokenResponse.shape);
const SUCCESS = ZOAuthTokenResponse.shape.i18nCode.value;

/** Paragraphs of `info.description`, for the people who generate a client and for their generator's doc comments. */
export const GENERATED_CLIENT_NOTES = [
  '**Clients generated from this document.** Three things are stated here in words, because a generated client does not do them ' +
    'from the schemas:',
  `1. **Pages.** ${code(PAGINATED_OPERATIONS)} answer a \`link\` response header while other pages exist: ` +
    '`<url>; rel="next"` and/or `<url>; rel="previous"`, comma-separated, absent on a single page and no `rel="next"` on the last. ' +
    "Each URL is absolute: GET it as it stands with the same `Authorization` header, and its answer is the same operation's 200. " +
    "A client that calls operations by path and parameters passes the URL's query parameters (`page_info` or `since_id`, `limit`, " +
    '`fields`, and any filter it repeats) unchanged to the same operation: each of them is a query parameter of that operation. ' +
    'Never build or edit `page_info`. ' +
    'Most generated clients return the body alone: read `link`, `traceId`, `X-Platform-Api-Call-Limit` and `Retry-After` ' +
    'from the raw HTTP response they also give.',
  `2. **Retries.** 429 and 503, and the 409 of an \`Idempotency-Key\` in use, carry \`Retry-After\` in whole seconds: send again ` +
    'after it. Send a POST again only with the `Idempotency-Key` of its first attempt, so the write happens once.',
  `3. **The OAuth token calls** (${code(TOKEN_OPERATIONS)}) take no bearer token. Each is signed with the headers ` +
    `${code(SIGN_HEADERS)}: \`timestamp\` is the milliseconds since the epoch as text, and \`sign\` the lowercase hex ` +
    'HMAC-SHA256, keyed with the app secret, of the raw body bytes followed by the `timestamp` text (an empty body signs the ' +
    'timestamp alone). Serialize the body once, sign those bytes and send exactly them: bytes other than the signed ones ' +
    '(the body serialized again, with other spacing or key order) are refused 401. Refresh and cancel have no body and are ' +
    "sent to the store's own host, `{handle}.{base domain}`, which names the store (this document's server URL does not; " +
    'another host is 400). ' +
    `Every answer of these calls, refusals included, is the envelope {${ENVELOPE.join(', ')}} rather than \`{"errors"}\`: ` +
    `\`code\` repeats the HTTP status, \`i18nCode\` is \`${SUCCESS}\` on success and a stable reason otherwise ` +
    '(e.g. `INVALID_SIGNATURE`), `data` is the token, or null for cancel and for refusals.',
];
