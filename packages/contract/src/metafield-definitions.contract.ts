import { z } from 'zod';
import {
  ACCESS_ADMIN_VALUES,
  DESCRIPTION_MAX_LENGTH,
  METAFIELD_TYPES,
  METAOBJECT_HANDLE_LENGTH,
  METAOBJECT_NAME_LENGTH,
  METAOBJECT_TYPE_LENGTH,
  NAME_MAX_LENGTH,
  OWNER_RESOURCES,
  RULE_NAMES,
  RULE_VALUE_MAX_LENGTH,
} from '@platform/domain/limits';
import { FIELDS_DESCRIPTION, pageQuery, ZId, ZIsoTime, type AdminRouteMetadata, type OperatorRouteMetadata } from './common';
import { documented } from './openapi-json-schema';
import { definitionRules, handleRules, ID_RULES, KEY_RULES, namespaceRules, textRules, VALIDATIONS_RULES } from './rules';
import { objectOf, queryText, text } from './metafield-messages';
import { adminRouterOptions, c, operatorRouterOptions } from './router';

/** decisions §8.1. */
export const ZOwnerResource = z.enum(['products', 'variants', 'collections', 'customers', 'orders', 'shop']);
export type OwnerResource = z.infer<typeof ZOwnerResource>;

/** The spec's "Access permission values" table. */
export const ZAccessAdmin = z.enum(['MERCHANT_READ_WRITE', 'MERCHANT_READ', 'PUBLIC_READ', 'PRIVATE', 'NONE']);
export type AccessAdmin = z.infer<typeof ZAccessAdmin>;

/** The spec's "Validation rule object": both strings, a numeric or array rule carries JSON text. */
export const ZValidationRule = z.object({
  name: z
    .string()
    .describe(
      'One of choices, allowed_domains, file_type_options, list.min, list.max, min, max, max_precision, regex, scale_min, scale_max, schema, metaobject_definition_id; at most once per definition.',
    ),
  value: z.string().describe('Non-empty, at most 300,000 characters; JSON text when the rule is numeric or an array.'),
});
export type ValidationRule = z.infer<typeof ZValidationRule>;

export const ZMetafieldDefinition = z.object({
  id: ZId,
  owner_resource: ZOwnerResource,
  namespace: z
    .string()
    .describe('As stored: a `$app:x` namespace comes back as `app--{app_id}--x`; use this spelling later (decisions §8.2).'),
  key: z.string(),
  name: z.string(),
  description: z.string().nullable().describe('null when not set or cleared.'),
  type: z.string(),
  validations: z.array(ZValidationRule),
  access: z.object({ admin: ZAccessAdmin }).nullable().describe('null when not set (decisions §8.7 gives its behaviour).'),
  created_at: ZIsoTime,
  updated_at: ZIsoTime,
});
export type MetafieldDefinition = z.infer<typeof ZMetafieldDefinition>;
export type MetafieldDefinitionField = keyof MetafieldDefinition;

/** With `fields`, only the named fields and `id` come back (decisions §6.4). */
export const ZListedMetafieldDefinition = ZMetafieldDefinition.partial().extend({ id: ZId });
export type ListedMetafieldDefinition = z.infer<typeof ZListedMetafieldDefinition>;

const ZAccessInput = z.object({
  admin: documented(z.string(), { enum: [...ACCESS_ADMIN_VALUES, ''] })
    .nullish()
    .describe('An access permission value; empty or null means not set.'),
});

/** A validation rule as a request sends it: a known name, a non-empty value (its format is the rule's, decisions §8.8). */
const ZValidationRuleInput = z.object({
  name: documented(z.string(), { enum: [...RULE_NAMES] }),
  value: documented(z.string().describe('JSON text when the rule is numeric or an array; its format depends on the rule and the type.'), {
    minLength: 1,
    maxLength: RULE_VALUE_MAX_LENGTH,
  }),
});
const validationsInput = () => documented(z.array(ZValidationRuleInput), VALIDATIONS_RULES);

/**
 * The create body. Shapes only: the server hands the body to the domain's rule engine, which
 * reports every problem at once with its own messages (decisions §4), so the server does not let
 * zod stop at the first wrong type. The document states the same rules (`documented`).
 */
export const ZMetafieldDefinitionInput = documented(
  z.object({
    owner_resource: documented(z.string().describe('decisions §8.1.'), { enum: [...OWNER_RESOURCES] }),
    namespace: documented(
      z.string().describe('3-255 letters, digits, - and _, or `$app:` + such a name: reserved to the calling app (decisions §8.2).'),
      namespaceRules(false),
    ),
    key: documented(z.string().describe('Unique per (owner_resource, namespace): a duplicate is 422.'), KEY_RULES),
    name: documented(z.string(), textRules(NAME_MAX_LENGTH)),
    type: documented(z.string().describe('decisions §8.8.'), { enum: [...METAFIELD_TYPES] }),
    description: documented(z.string(), { maxLength: DESCRIPTION_MAX_LENGTH }).nullish(),
    validations: validationsInput().nullish(),
    access: ZAccessInput.nullish(),
  }),
  definitionRules,
);
export type MetafieldDefinitionInput = z.infer<typeof ZMetafieldDefinitionInput>;

/**
 * The update body: owner_resource + namespace + key name the target; an omitted or null field keeps
 * its value, "" clears text, [] clears every rule; a different type is refused (decisions §8.5).
 */
export const ZMetafieldDefinitionUpdate = documented(
  z.object({
    owner_resource: documented(z.string(), { enum: [...OWNER_RESOURCES] }),
    namespace: documented(
      z.string().describe('Either spelling of an app namespace: `$app:x` or `app--{app_id}--x`.'),
      namespaceRules(true),
    ),
    key: documented(z.string(), KEY_RULES),
    name: documented(z.string(), textRules(NAME_MAX_LENGTH)).nullish(),
    description: documented(z.string(), { maxLength: DESCRIPTION_MAX_LENGTH }).nullish().describe('"" clears it.'),
    validations: validationsInput().nullish().describe('[] clears every rule; a non-empty array replaces the whole set.'),
    access: ZAccessInput.nullish().describe('{admin: null} keeps, {admin: ""} clears.'),
    type: documented(z.string(), { enum: [...METAFIELD_TYPES] })
      .nullish()
      .describe('May be sent, but must equal the stored type.'),
  }),
  definitionRules,
);
export type MetafieldDefinitionUpdate = z.infer<typeof ZMetafieldDefinitionUpdate>;

/** Query values stay strings: the server parses them and owns the 400 messages (decisions §6). */
export const ZListMetafieldDefinitionsQuery = z.object({
  owner_resource: documented(queryText(), { enum: [...OWNER_RESOURCES] })
    .optional()
    .describe('Only definitions of this resource type.'),
  namespace: documented(queryText(), namespaceRules(true))
    .optional()
    .describe('Only definitions of this namespace (either spelling of an app namespace).'),
  ...pageQuery(queryText),
  fields: queryText().optional().describe(FIELDS_DESCRIPTION),
});

/** The merchant's view (operator API) names app namespaces by their stored spelling only. */
export const ZMerchantMetafieldDefinitionsQuery = ZListMetafieldDefinitionsQuery.extend({
  namespace: documented(queryText(), namespaceRules(true, false))
    .optional()
    .describe('Only definitions of this namespace (an app namespace as stored, app--{app_id}--x).'),
});
export type ListMetafieldDefinitionsQuery = z.infer<typeof ZListMetafieldDefinitionsQuery>;

const ZIdQuery = z.object({ id: documented(queryText().describe('The definition id.'), ID_RULES) });

const read = { scope: 'read_metafields' } satisfies Omit<AdminRouteMetadata, 'auth'>;
const write = { scope: 'write_metafields' } satisfies Omit<AdminRouteMetadata, 'auth'>;
const ACCESS_NOTE =
  'A definition the calling app may not see (access.admin) is a 404; one it may see but not change is a 403 (decisions §8.7).';

/** Admin API: metafield definitions (spec "Metafield definition operations", decisions §8.1-§8.7). */
export const metafieldDefinitionsContract = c.router(
  {
    createMetafieldDefinition: {
      method: 'POST',
      path: '/metafield_definition.json',
      body: z.object({ definition: ZMetafieldDefinitionInput }),
      responses: { 201: z.object({ definition: ZMetafieldDefinition }) },
      summary: 'Create a metafield definition',
      description: 'Every problem is reported at once (422). A duplicate (owner_resource, namespace, key) is a 422.',
      metadata: write,
    },
    getMetafieldDefinition: {
      method: 'GET',
      path: '/metafield_definition.json',
      query: ZIdQuery,
      responses: { 200: z.object({ definition: ZMetafieldDefinition }) },
      summary: 'Read a metafield definition by id',
      description: ACCESS_NOTE,
      metadata: read,
    },
    updateMetafieldDefinition: {
      method: 'PUT',
      path: '/metafield_definition.json',
      body: z.object({ definition: ZMetafieldDefinitionUpdate }),
      responses: { 200: z.object({ definition: ZMetafieldDefinition }) },
      summary: 'Change a metafield definition named by owner_resource, namespace and key',
      description: `updated_at is refreshed. Changed validations re-check the existing values in the background (decisions §8.12). ${ACCESS_NOTE}`,
      metadata: write,
    },
    deleteMetafieldDefinition: {
      method: 'DELETE',
      path: '/metafield_definition.json',
      query: ZIdQuery.extend({
        delete_all_associated_metafields: documented(queryText(), { enum: ['true', 'false'] })
          .optional()
          .describe('true: the values go too; false (default): they stay, without a definition (decisions §8.4).'),
      }),
      responses: { 200: z.object({}) },
      summary: 'Delete a metafield definition',
      description: ACCESS_NOTE,
      metadata: write,
    },
    listMetafieldDefinitions: {
      method: 'GET',
      path: '/metafield_definitions.json',
      query: ZListMetafieldDefinitionsQuery,
      responses: { 200: z.object({ metafield_definitions: z.array(ZListedMetafieldDefinition) }) },
      summary: 'List the metafield definitions the calling app may see, ascending id, cursor-paginated (decisions §8.6)',
      description: 'Follow the URLs of the link header as they stand; no link header means a single page.',
      metadata: { ...read, paginated: true },
    },
  },
  adminRouterOptions,
);

export const ZMetaobjectDefinition = z.object({
  id: ZId,
  type: z.string(),
  name: z.string(),
  admin_graphql_api_id: z.string().describe('gid://platform/MetaobjectDefinition/{id}, accepted by the metaobject_definition_id rule.'),
  created_at: ZIsoTime,
  updated_at: ZIsoTime,
});
export type MetaobjectDefinition = z.infer<typeof ZMetaobjectDefinition>;

export const ZMetaobject = z.object({
  id: ZId,
  definition_id: ZId,
  type: z.string().describe("The definition's type."),
  handle: z.string(),
  admin_graphql_api_id: z.string().describe('gid://platform/Metaobject/{id}: the value of a metaobject_reference.'),
  created_at: ZIsoTime,
  updated_at: ZIsoTime,
});
export type Metaobject = z.infer<typeof ZMetaobject>;

/** Operator API: merchant view of definitions, metaobject definitions and metaobjects (decisions §8.14, §10). */
export const operatorMetafieldDefinitionsContract = c.router(
  {
    listMerchantMetafieldDefinitions: {
      method: 'GET',
      path: '/stores/:handle/metafield_definitions',
      query: ZMerchantMetafieldDefinitionsQuery,
      responses: { 200: z.object({ metafield_definitions: z.array(ZListedMetafieldDefinition) }) },
      summary: "The merchant admin's view: every definition except PRIVATE ones, paginated like the Admin API",
      metadata: { paginated: true } satisfies Partial<OperatorRouteMetadata>,
    },
    createMetaobjectDefinition: {
      method: 'POST',
      path: '/stores/:handle/metaobject_definitions',
      body: objectOf({
        metaobject_definition: objectOf({
          type: documented(text().describe('Letters, digits, - and _; unique per store.'), handleRules(METAOBJECT_TYPE_LENGTH)),
          name: documented(text(), textRules(METAOBJECT_NAME_LENGTH.max)),
        }),
      }),
      responses: { 201: z.object({ metaobject_definition: ZMetaobjectDefinition }) },
      summary: 'Create a metaobject definition (what the metaobject_definition_id rule names)',
    },
    createMetaobject: {
      method: 'POST',
      path: '/stores/:handle/metaobject_definitions/:id/metaobjects',
      body: objectOf({
        metaobject: objectOf({
          handle: documented(text().describe('Letters, digits, - and _; unique per definition.'), handleRules(METAOBJECT_HANDLE_LENGTH)),
        }),
      }),
      responses: { 201: z.object({ metaobject: ZMetaobject }) },
      summary: 'Create a metaobject (what a metaobject_reference value names)',
    },
  },
  operatorRouterOptions,
);
