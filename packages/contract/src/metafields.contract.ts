import { z } from 'zod';
import { FIELDS_DESCRIPTION, pageQuery, ZId, ZIsoTime, type AdminRouteMetadata, type OperatorRouteMetadata } from './common';
import { documented } from './openapi-json-schema';
import { ID_RULES, KEY_RULES, namespaceRules, PRODUCT_ID_RULES } from './rules';
import { JSON_VALUE_MAX_BYTES, METAFIELD_TYPES } from '@platform/domain/limits';
import { objectOf, queryText, text } from './metafield-messages';
import { adminRouterOptions, c, operatorRouterOptions } from './router';

/*
 * decisions §8.9: metafield values on products and the bulk set. Request schemas give shapes only;
 * formats (namespace, key, type, value) are checked by the server with the domain's rule engine,
 * which owns those messages.
 */

/** decisions §5.5: values on products need the metafield scope and the product scope. */
const READ = { scope: 'read_metafields', alsoScopes: ['read_products'] } satisfies Omit<AdminRouteMetadata, 'auth'>;
const WRITE = { scope: 'write_metafields', alsoScopes: ['write_products'] } satisfies Omit<AdminRouteMetadata, 'auth'>;

export const ZMetafield = z.object({
  id: ZId,
  namespace: z.string().describe('As stored: `$app:x` is returned as `app--{app_id}--x` (decisions §8.2).'),
  key: z.string(),
  value: z.string().describe('Always text; structured types and lists carry JSON text (decisions §8.8).'),
  type: z.string(),
  description: z.string().nullable().describe("The definition's description; null without a definition."),
  owner_id: ZId,
  owner_resource: z.literal('products'),
  created_at: ZIsoTime,
  updated_at: ZIsoTime,
  admin_graphql_api_id: z.string().describe('gid://platform/Metafield/{id}'),
});
export type Metafield = z.infer<typeof ZMetafield>;

/** A value as a listing returns it: `fields` keeps only the named fields, `id` always (decisions §6.4). */
export const ZListedMetafield = ZMetafield.partial().extend({ id: ZId });
export type ListedMetafield = z.infer<typeof ZListedMetafield>;

const metafieldType = () => documented(text(), { enum: [...METAFIELD_TYPES] });

export const ZMetafieldInput = objectOf({
  namespace: documented(
    text().describe('3-255 characters of letters, digits, - and _, or `$app:` + such a name (decisions §8.2).'),
    namespaceRules(true),
  ),
  key: documented(text().describe('3-64 characters of letters, digits, - and _.'), KEY_RULES),
  type: metafieldType()
    .nullish()
    .transform((v) => v ?? undefined)
    .describe("Required without a definition; with one it may be omitted (or null) and must equal the definition's type."),
  value: documented(
    text().describe(
      "Text in the type's basic format (decisions §8.8: JSON text for structured types and lists), checked against the " +
        "definition's rules when one exists. From v20260901 it cannot be empty (decisions §2.6).",
    ),
    { minLength: 1, maxLength: JSON_VALUE_MAX_BYTES },
  ),
});
export type MetafieldInput = z.infer<typeof ZMetafieldInput>;

/** Update: the value (and optionally its type); namespace and key identify it and cannot change. */
export const ZMetafieldUpdate = objectOf({
  namespace: documented(text(), namespaceRules(true)).optional().describe("The value's own: another one is 422."),
  key: documented(text(), KEY_RULES).optional().describe("The value's own: another one is 422."),
  type: metafieldType()
    .nullish()
    .transform((v) => v ?? undefined)
    .describe('Omitted or null: the stored type.'),
  value: documented(text().describe('Not empty from v20260901 (decisions §2.6); earlier versions take "" too.'), {
    minLength: 1,
    maxLength: JSON_VALUE_MAX_BYTES,
  }),
});
export type MetafieldUpdate = z.infer<typeof ZMetafieldUpdate>;

export const ZMetafieldSetEntry = ZMetafieldInput.extend({
  owner_resource: documented(text().describe('Only products can hold values (decisions §8.1).'), { enum: ['products'] }),
  // A JSON number is refused: 1.0000000000000001 would read as product 1 (issue 8, finding 6).
  owner_id: documented(
    z
      .string({ errorMap: () => ({ message: 'must be a product id (a decimal string)' }) })
      .describe('The product id, a decimal string (gid://platform/Product/{id} is accepted too); a JSON number is refused.'),
    PRODUCT_ID_RULES,
  ),
});
export type MetafieldSetEntry = z.infer<typeof ZMetafieldSetEntry>;

export const METAFIELDS_SET_MAX = 25;

export const ZMetafieldsSet = objectOf({
  metafields: z
    .array(ZMetafieldSetEntry, { required_error: "can't be blank", invalid_type_error: 'must be an array' })
    .min(1, 'must hold at least 1 entry')
    .max(METAFIELDS_SET_MAX, `must hold at most ${METAFIELDS_SET_MAX} entries`),
});
export type MetafieldsSet = z.infer<typeof ZMetafieldsSet>;

export const ZListMetafieldsQuery = z.object({
  ...pageQuery(queryText),
  fields: queryText().optional().describe(FIELDS_DESCRIPTION),
  namespace: documented(queryText(), namespaceRules(true))
    .optional()
    .describe('Only values of this namespace (either spelling of `$app:`).'),
  key: documented(queryText(), KEY_RULES).optional().describe('Only values of this key.'),
});
export type ListMetafieldsQuery = z.infer<typeof ZListMetafieldsQuery>;

const productPath = '/products/:id/metafields.json';
const onePath = '/products/:id/metafields/:metafieldId.json';
const ids = z.object({ id: ZId, metafieldId: ZId });

export const metafieldsContract = c.router(
  {
    createProductMetafield: {
      method: 'POST',
      path: productPath,
      pathParams: ids.omit({ metafieldId: true }),
      body: objectOf({ metafield: ZMetafieldInput }),
      responses: {
        201: z.object({ metafield: ZMetafield }).describe('Created.'),
        200: z.object({ metafield: ZMetafield }).describe('A value of that namespace and key existed on the product: it was updated.'),
      },
      summary: 'Create (or, for an existing namespace and key, update) a metafield value on a product',
      metadata: WRITE,
    },
    listProductMetafields: {
      method: 'GET',
      path: productPath,
      pathParams: ids.omit({ metafieldId: true }),
      query: ZListMetafieldsQuery,
      responses: { 200: z.object({ metafields: z.array(ZListedMetafield) }) },
      summary: "List a product's metafield values, ascending id, cursor-paginated",
      metadata: { ...READ, paginated: true },
    },
    getProductMetafield: {
      method: 'GET',
      path: onePath,
      pathParams: ids,
      responses: { 200: z.object({ metafield: ZMetafield }) },
      summary: 'Read one metafield value of a product',
      metadata: READ,
    },
    updateProductMetafield: {
      method: 'PUT',
      path: onePath,
      pathParams: ids,
      body: objectOf({ metafield: ZMetafieldUpdate }),
      responses: { 200: z.object({ metafield: ZMetafield }) },
      summary: 'Change a metafield value of a product',
      metadata: WRITE,
    },
    deleteProductMetafield: {
      method: 'DELETE',
      path: onePath,
      pathParams: ids,
      body: c.noBody(),
      responses: { 200: z.object({}) },
      summary: 'Delete a metafield value of a product',
      metadata: WRITE,
    },
    setMetafields: {
      method: 'POST',
      path: '/metafields_set.json',
      body: ZMetafieldsSet,
      responses: { 200: z.object({ metafields: z.array(ZMetafield) }).describe('Every entry written, in request order.') },
      summary: 'Write 1 to 25 values at once, all or nothing (creates or updates by owner, namespace and key)',
      description:
        'Every entry is validated first; any failure answers 422 naming the entry (`metafields[3].value: ...`) and nothing is written.',
      metadata: WRITE,
    },
  },
  adminRouterOptions,
);

/** A value as the operator (merchant admin) sees it, with the background re-check's verdict (decisions §8.12). */
export const ZOperatorMetafield = ZMetafield.extend({
  definition_id: ZId.nullable(),
  valid: z.boolean(),
  invalid_reasons: z.array(z.string()),
});
export type OperatorMetafield = z.infer<typeof ZOperatorMetafield>;

export const ZOperatorMetafieldsQuery = z.object({
  valid: documented(queryText(), { enum: ['true', 'false'] })
    .optional()
    .describe('Absent lists both.'),
  limit: pageQuery(queryText, 1000).limit,
  since_id: documented(queryText(), ID_RULES).optional().describe('Records whose id is greater than this (the link header carries it).'),
});
export type OperatorMetafieldsQuery = z.infer<typeof ZOperatorMetafieldsQuery>;

export const operatorMetafieldsContract = c.router(
  {
    listStoreMetafields: {
      method: 'GET',
      path: '/stores/:handle/metafields',
      query: ZOperatorMetafieldsQuery,
      responses: { 200: z.object({ metafields: z.array(ZOperatorMetafield) }) },
      summary: "A store's metafield values with their re-check verdicts, ascending id, keyset-paginated by since_id",
      description: 'A `link` header with rel="next" is sent while more exist. Values of PRIVATE definitions are not shown.',
      metadata: { paginated: true } satisfies Partial<OperatorRouteMetadata>,
    },
  },
  operatorRouterOptions,
);
