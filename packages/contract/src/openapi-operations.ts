import type { AppRoute } from '@ts-rest/core';
import type { generateOpenApi } from '@ts-rest/open-api';
import type { AdminRouteMetadata, OAuthRouteMetadata, OperatorRouteMetadata } from './common';
import { toJsonSchema2020, withoutNul } from './openapi-json-schema';

type JsonSchema = { [keyword: string]: unknown };

type Operation = Parameters<NonNullable<NonNullable<Parameters<typeof generateOpenApi>[2]>['operationMapper']>>[0];
type Json = Record<string, unknown>;

const SUCCESS: Record<number, string> = { 200: 'OK', 201: 'Created' };

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/**
 * Response headers, as components: OpenAPI puts `required` on the header itself, so a header that
 * some answers of a status lack has a second component without it.
 */
export const HEADERS = {
  TraceId: {
    description: 'Unique id of this request, also written in its log line; on every answer, errors included (decisions §3.2).',
    required: true,
    schema: { type: 'string', minLength: 1 },
  },
  ApiVersion: {
    description: 'The API version that actually served the request (decisions §2.5).',
    required: true,
    schema: { type: 'string', pattern: '^v\\d{8}$', examples: ['v20260901'] },
  },
  ApiVersionWhenResolved: {
    description: 'The API version that served the request; absent when the version of the path is itself unknown (decisions §2.3).',
    required: false,
    schema: { type: 'string', pattern: '^v\\d{8}$', examples: ['v20260901'] },
  },
  CallLimit: {
    description: "Use of the calling app's bucket on this store, used/capacity (decisions §7.3).",
    required: true,
    schema: { type: 'string', pattern: '^\\d+/\\d+$', examples: ['3/40'] },
  },
  CallLimitWhenCounted: {
    description:
      "Use of the calling app's bucket on this store, used/capacity (decisions §7.3): present when the token was checked " +
      '(an unknown resource, a body too large while it streamed), absent when the route, the version or the declared size was refused first.',
    required: false,
    schema: { type: 'string', pattern: '^\\d+/\\d+$', examples: ['3/40'] },
  },
  RetryAfter: {
    description: 'Whole seconds to wait before sending again, at least 1 (decisions §7.2).',
    required: true,
    schema: { type: 'string', pattern: '^[1-9]\\d*$', examples: ['1'] },
  },
  IdempotentReplayed: {
    description:
      'Present (`true`) when this answer is the stored answer of an earlier request with the same Idempotency-Key (docs/idempotency.md).',
    required: false,
    schema: { type: 'string', enum: ['true'] },
  },
  Link: {
    description:
      'Absent on a single page. Otherwise `<url>; rel="next"` and/or `<url>; rel="previous"`, comma-separated; ' +
      'each URL is absolute and carries page_info (or since_id), limit and (when given) fields. GET it as it stands (decisions §6.3), ' +
      'or pass its query parameters unchanged to the same operation.',
    required: false,
    schema: { type: 'string' },
  },
} as const;

/** docs/idempotency.md: every POST of the Admin and operator APIs takes a key; the OAuth token calls do not. */
export const PARAMETERS = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry of this POST safe: the first answer is kept 24 hours per (app or operator, store), and a repeat with the same key ' +
      'and the same request gets it back (with Idempotent-Replayed: true) instead of running again. Another request under the key is 422; ' +
      'a repeat while the first is still running is 409. A first answer of 5xx is not kept. 1-255 printable ASCII characters, else 400.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  },
} as const;

const ERROR_BODY = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } };
const IDEMPOTENCY_IN_USE = 'A request with the same Idempotency-Key is still being processed; send it again later (Retry-After).';
const IDEMPOTENCY_QUOTA = 'The answers kept for Idempotency-Key are over their quota for this caller; send again after Retry-After.';
const UNAVAILABLE = 'The database is unreachable, or the service is starting or stopping: send again after Retry-After.';

type Metadata = Partial<AdminRouteMetadata> | Partial<OperatorRouteMetadata> | Partial<OAuthRouteMetadata>;

function metadataOf(route: AppRoute): Metadata {
  return (route.metadata ?? {}) as Metadata;
}

/** The headers of one answer (decisions §3.2, §2.5, §7, §6.3), by API and status. */
function headersOf(surface: 'admin' | 'operator' | 'oauth', code: number, flags: { paginated: boolean; keyed: boolean }): Json {
  const headers: Json = { traceId: ref('TraceId') };
  if (surface === 'admin') {
    // The version is resolved first (404 when unknown); the bucket is counted after the token (401 before it).
    headers['X-Platform-API-Version'] = ref(code === 404 || code >= 500 ? 'ApiVersionWhenResolved' : 'ApiVersion');
    if (code !== 401)
      headers['X-Platform-Api-Call-Limit'] = ref(code === 404 || code === 413 || code >= 500 ? 'CallLimitWhenCounted' : 'CallLimit');
  }
  if (code === 429 || code === 409 || code === 503) headers['Retry-After'] = ref('RetryAfter');
  if (flags.paginated && code === 200) headers['link'] = ref('Link');
  if (flags.keyed && code < 500) headers['Idempotent-Replayed'] = ref('IdempotentReplayed');
  return headers;
}

function requestParameter(parameter: Json): Json {
  const schema = parameter['schema'] as JsonSchema | undefined;
  return schema ? { ...parameter, schema: withoutNul(toJsonSchema2020(schema)) } : parameter;
}

/**
 * Adds what ts-rest cannot derive from zod: auth, response headers, the version parameter, the
 * statuses each API answers, and one shared error body schema (lifted from the generated document,
 * not written again, so it always matches `ZErrorBody`). Schemas become JSON Schema 2020-12.
 */
export function describeOperation(operation: Operation, route: AppRoute, errorBody: { schema?: Json }): Operation {
  const metadata = metadataOf(route);
  const surface = metadata.auth === 'app' ? 'admin' : metadata.auth === 'signed' ? 'oauth' : 'operator';
  const orScopes = 'orScopes' in metadata && metadata.orScopes ? metadata.orScopes : [];
  const scope = 'scope' in metadata && metadata.scope ? [metadata.scope, ...orScopes].map((s) => `\`${s}\``).join(' or ') : undefined;
  const paginated = 'paginated' in metadata && metadata.paginated === true;
  const keyed = route.method === 'POST' && surface !== 'oauth';

  const parameters = (operation.parameters ?? []).map((parameter) =>
    'name' in parameter && parameter.name === 'version' && parameter.in === 'path'
      ? {
          ...parameter,
          description: 'API version, v + a release date YYYYMMDD; a retired one is served by the oldest supported (decisions §2).',
          schema: { type: 'string' as const, pattern: '^v\\d{8}$', examples: ['v20260901'] },
        }
      : requestParameter(parameter as Json),
  );
  if (keyed) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' } as never);

  const responses: Json = {};
  for (const [status, raw] of Object.entries(operation.responses as Record<string, Json>)) {
    const code = Number(status);
    const headers = headersOf(surface, code, { paginated, keyed });
    // ts-rest names a response by its status unless its schema has a description.
    const description = raw['description'] === status ? (SUCCESS[code] ?? status) : raw['description'];
    const content = raw['content'] as { 'application/json'?: { schema?: JsonSchema } } | undefined;
    const schema = content?.['application/json']?.schema;
    let response: Json = { ...raw, description, headers };
    if (schema) response['content'] = { 'application/json': { schema: toJsonSchema2020(schema) } };
    if (code >= 400 && surface !== 'oauth') {
      if (schema && !errorBody.schema) {
        const { description: _perStatus, ...shared } = schema;
        errorBody.schema = toJsonSchema2020(shared);
      }
      response = { ...response, content: ERROR_BODY };
    }
    responses[status] = response;
  }
  if (keyed) {
    responses['409'] = { description: IDEMPOTENCY_IN_USE, headers: headersOf(surface, 409, { paginated, keyed }), content: ERROR_BODY };
    // The operator API is not rate-limited; its keyed POSTs still meet the quota of kept answers (decisions §12.5).
    if (surface === 'operator') {
      responses['429'] = { description: IDEMPOTENCY_QUOTA, headers: headersOf(surface, 429, { paginated, keyed }), content: ERROR_BODY };
    }
  }
  if (surface !== 'oauth') {
    responses['503'] = { description: UNAVAILABLE, headers: headersOf(surface, 503, { paginated, keyed }), content: ERROR_BODY };
  }

  const requestBody = operation.requestBody as { content?: { 'application/json'?: { schema?: JsonSchema } } } | undefined;
  const bodySchema = requestBody?.content?.['application/json']?.schema;
  const bodyRequired = typeof route.method === 'string' && 'body' in route && isRequired(route.body);

  return {
    ...operation,
    ...(scope
      ? { description: [operation.description, `Required access scope: ${scope} (decisions §5.5).`].filter(Boolean).join('\n\n') }
      : {}),
    parameters,
    ...(bodySchema
      ? {
          requestBody: {
            description: bodyRequired ? 'Required: an empty body is 422 `body: required`.' : 'Optional.',
            required: bodyRequired,
            content: { 'application/json': { schema: withoutNul(toJsonSchema2020(bodySchema)) } },
          },
        }
      : {}),
    security: surface === 'oauth' ? [] : surface === 'admin' ? [{ accessToken: [] }] : [{ operatorToken: [] }],
    responses,
  } as Operation;
}

/** A zod body that must be sent (`.optional()` bodies and `c.noBody()` need not). */
function isRequired(body: unknown): boolean {
  const schema = body as { isOptional?: () => boolean } | null | undefined;
  return typeof schema?.isOptional === 'function' && !schema.isOptional();
}
