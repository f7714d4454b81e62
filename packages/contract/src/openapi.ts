import type { AppRoute } from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';
import type { AdminRouteMetadata, OAuthRouteMetadata, OperatorRouteMetadata } from './common';
import { contract } from './contract';

type Operation = Parameters<NonNullable<NonNullable<Parameters<typeof generateOpenApi>[2]>['operationMapper']>>[0];
type Json = Record<string, unknown>;

const SUCCESS: Record<number, string> = { 200: 'OK', 201: 'Created' };

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

const HEADERS = {
  traceId: {
    description: 'Unique id of this request, also written in its log line; on every response, errors included (decisions §3.2).',
    schema: { type: 'string' },
  },
  'X-Platform-API-Version': {
    description: 'The API version that actually served the request (decisions §2.5).',
    schema: { type: 'string', example: 'v20260901' },
  },
  'X-Platform-Api-Call-Limit': {
    description: 'Rate-limit bucket use of this app on this store, used/capacity (decisions §7.3).',
    schema: { type: 'string', example: '3/40' },
  },
  'Retry-After': {
    description: 'Whole seconds to wait before retrying, at least 1 (decisions §7.2).',
    schema: { type: 'integer', minimum: 1 },
  },
  'Idempotent-Replayed': {
    description:
      'Present (`true`) when this answer is the stored answer of an earlier request with the same Idempotency-Key (docs/idempotency.md).',
    schema: { type: 'string', enum: ['true'] },
  },
  link: {
    description:
      'Absent on a single page. Otherwise `<url>; rel="next"` and/or `<url>; rel="previous"`, comma-separated; ' +
      'each URL is absolute and carries page_info, limit and (when given) fields. GET it as it stands (decisions §6.3).',
    schema: { type: 'string' },
  },
};

/** docs/idempotency.md: every POST of the Admin and operator APIs takes a key; the OAuth token calls do not. */
const PARAMETERS = {
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

const IDEMPOTENCY_IN_USE = 'A request with the same Idempotency-Key is still being processed; send it again later (Retry-After).';

type Metadata = Partial<AdminRouteMetadata> | Partial<OperatorRouteMetadata> | Partial<OAuthRouteMetadata>;

function metadataOf(route: AppRoute): Metadata {
  return (route.metadata ?? {}) as Metadata;
}

/**
 * Adds what ts-rest cannot derive from zod: auth, response headers, the version parameter, and
 * one shared error body schema. The error schema is lifted from the generated document (not
 * written again) so it always matches `ZErrorBody`.
 */
function describeOperation(operation: Operation, route: AppRoute, errorBody: { schema?: Json }): Operation {
  const metadata = metadataOf(route);
  const admin = metadata.auth === 'app';
  // decisions §5.2: the token calls answer in their own envelope and are signed, not bearer calls.
  const signed = metadata.auth === 'signed';
  const orScopes = 'orScopes' in metadata && metadata.orScopes ? metadata.orScopes : [];
  const scope = 'scope' in metadata && metadata.scope ? [metadata.scope, ...orScopes].map((s) => `\`${s}\``).join(' or ') : undefined;
  const paginated = 'paginated' in metadata && metadata.paginated === true;
  const keyed = route.method === 'POST' && !signed;

  const parameters = (operation.parameters ?? []).map((parameter) =>
    'name' in parameter && parameter.name === 'version' && parameter.in === 'path'
      ? {
          ...parameter,
          description: 'API version, v + a release date YYYYMMDD; a retired one is served by the oldest supported (decisions §2).',
          schema: { type: 'string' as const, pattern: '^v\\d{8}$', example: 'v20260901' },
        }
      : parameter,
  );
  if (keyed) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' } as never);

  const responses: Json = {};
  for (const [status, raw] of Object.entries(operation.responses as Record<string, Json>)) {
    const code = Number(status);
    const headers: Json = { traceId: header('traceId') };
    if (admin) {
      headers['X-Platform-API-Version'] = header('X-Platform-API-Version');
      headers['X-Platform-Api-Call-Limit'] = header('X-Platform-Api-Call-Limit');
    }
    if (code === 429) headers['Retry-After'] = header('Retry-After');
    if (paginated && code === 200) headers['link'] = header('link');
    if (keyed && code < 500) headers['Idempotent-Replayed'] = header('Idempotent-Replayed');
    // ts-rest names a response by its status unless its schema has a description.
    const description = raw['description'] === status ? (SUCCESS[code] ?? status) : raw['description'];
    let response: Json = { ...raw, description, headers };
    if (code >= 400 && !signed) {
      const content = raw['content'] as { 'application/json'?: { schema?: Json } } | undefined;
      const schema = content?.['application/json']?.schema;
      if (schema && !errorBody.schema) {
        const { description: _perStatus, ...shared } = schema;
        errorBody.schema = shared;
      }
      response = { ...response, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } };
    }
    responses[status] = response;
  }
  if (keyed) {
    responses['409'] = {
      description: IDEMPOTENCY_IN_USE,
      headers: { traceId: header('traceId'), 'Retry-After': header('Retry-After') },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
    };
  }

  return {
    ...operation,
    ...(scope
      ? { description: [operation.description, `Required access scope: ${scope} (decisions §5.5).`].filter(Boolean).join('\n\n') }
      : {}),
    parameters,
    security: signed ? [] : admin ? [{ accessToken: [] }] : [{ operatorToken: [] }],
    responses,
  };
}

/** The OpenAPI 3.0 document of both surfaces, generated from the contract (decisions §12.3). */
export function generateOpenApiDocument(opts: { serverUrl?: string } = {}): object {
  const errorBody: { schema?: Json } = {};
  const document = generateOpenApi(
    contract,
    {
      info: {
        title: 'Platform Admin API',
        version: '1.0.0',
        description:
          'Admin API paths are /admin/openapi/{version}/... and are called with an app access token; ' +
          'operator paths (/platform/v1/...) with the operator token. JSON bodies are sent with ' +
          '`Content-Type: application/json; charset=utf-8`. Every failure answers `{"errors": "<message>"}` (the OAuth token calls answer in their own envelope). ' +
          "Times are ISO 8601 with the offset of the store's iana_timezone.",
      },
      ...(opts.serverUrl ? { servers: [{ url: opts.serverUrl }] } : {}),
      tags: [
        { name: 'admin', description: 'Store data for apps, with an access token (Authorization: Bearer <ACCESS_TOKEN>).' },
        { name: 'operator', description: 'Platform team and merchant admin actions (decisions §10).' },
        {
          name: 'oauth',
          description:
            'Token calls of custom and public apps (decisions §5.2), signed with the headers appkey, timestamp and sign; ' +
            'they answer {"code","i18nCode","message","data"}.',
        },
      ],
      components: {
        securitySchemes: {
          accessToken: {
            type: 'http',
            scheme: 'bearer',
            description: "An app's access token for one store (decisions §5); it identifies the store.",
          },
          operatorToken: { type: 'http', scheme: 'bearer', description: 'PLATFORM_OPERATOR_TOKEN (decisions §10).' },
        },
        headers: HEADERS,
        parameters: PARAMETERS,
      },
    },
    { setOperationId: true, operationMapper: (operation, route) => describeOperation(operation, route, errorBody) },
  );
  const components = (document.components ?? {}) as Json;
  return {
    ...document,
    components: {
      ...components,
      schemas: { ...(components['schemas'] as Json | undefined), ...(errorBody.schema ? { ErrorBody: errorBody.schema } : {}) },
    },
  };
}
