import { VALUE_FORMAT_IN_WORDS } from '@platform/domain/limits';
import { generateOpenApi } from '@ts-rest/open-api';
import { contract } from './contract';
import { GENERATED_CLIENT_NOTES } from './openapi-client-notes';
import { describeOperation, HEADERS, PARAMETERS } from './openapi-operations';

type Json = Record<string, unknown>;

/**
 * decisions §12.9: what every request must also be, which JSON Schema does not say (or says only on
 * each field): read by people and generators alike at the top of the document.
 */
const CONVENTIONS = [
  'JSON bodies are sent with `Content-Type: application/json; charset=utf-8`; another type, malformed JSON, bytes that are not UTF-8, ' +
    'a string holding NUL (`\\u0000`) or an unpaired UTF-16 surrogate escape (`"\\ud800"`), a key twice in one object, or nesting ' +
    'deeper than 64 levels is 400 `Malformed JSON body: ...`. No request string may hold NUL, in the body or the query (`%00`): ' +
    'every request string of this document has a pattern that excludes it.',
  'A body over 8 MB is 413 (over 4 KB on the OAuth token calls, whose bodies are `{"code"}` or nothing). ' +
    'A path of this document with a method it does not take is 405 with `Allow` listing those it takes; any other unknown path is 404.',
  'A request this document allows is refused only for the state of the data: an unknown id or handle (404), a name in use ' +
    'or an app namespace of another app (422, 403 or 404), a stored metafield definition (its type, its rules, and the format of ' +
    'a value whose request names no `type`), the supported versions of the clock (404, and 422 for a subscription api_version), ' +
    "or a rule this document states in words because JSON Schema cannot. A metafield value's format by the `type` its request " +
    "names is stated by the request object's `anyOf` (JSON text as `contentMediaType: application/json` with a " +
    '`contentSchema`); in words only: ' +
    `${VALUE_FORMAT_IN_WORDS.join('; ')}. In metafield definitions, in words only: rule values (JSON text), the regular ` +
    'expressions and JSON Schemas a definition carries, and comparisons between two fields (min at most max).',
  'Failures answer `{"errors": "<message>"}`, several problems joined with `; `, field name first; the OAuth token calls answer ' +
    "in their own envelope. Times are ISO 8601 with the offset of the store's iana_timezone.",
].join('\n\n');

/** The OpenAPI 3.1 document of the three APIs, generated from the contract (decisions §12.3, §12.9). */
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
          'operator paths (/platform/v1/...) with the operator token; the OAuth token calls are signed.\n\n' +
          CONVENTIONS +
          '\n\n' +
          GENERATED_CLIENT_NOTES.join('\n\n'),
      },
      // Relative to where the document is served: the API answers on its own host and on every store's host.
      servers: [{ url: opts.serverUrl ?? '/', description: 'This service (the host that served this document).' }],
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
    openapi: '3.1.0',
    components: {
      ...components,
      schemas: { ...(components['schemas'] as Json | undefined), ...(errorBody.schema ? { ErrorBody: errorBody.schema } : {}) },
    },
  };
}
