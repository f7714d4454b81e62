import { z } from 'zod';
import { MAX_PRODUCT_HANDLE, PRODUCT_DECIMAL } from '@platform/domain/limits';
import { FIELDS_DESCRIPTION, pageQuery, ZDecimal, ZId, ZIsoTime, type AdminRouteMetadata } from './common';
import { documented } from './openapi-json-schema';
import { NOT_BLANK, TIME_RULES } from './rules';
import { adminRouterOptions, c } from './router';

export const ZProductImage = z.object({
  id: ZId,
  src: z.string(),
  alt: z.string(),
});
export type ProductImage = z.infer<typeof ZProductImage>;

export const ZProductMedia = z.object({
  id: ZId,
  src: z.string(),
  alt: z.string(),
  caption: z.string(),
  content_type: z.string().describe('Samples show IMAGE.'),
  preview_image: z.object({ src: z.string() }),
});
export type ProductMedia = z.infer<typeof ZProductMedia>;

export const ZProductOption = z.object({
  id: ZId,
  product_id: ZId,
  name: z.string(),
  values: z.array(z.string()),
  option_values: z.array(z.object({ id: ZId, value: z.string() })),
  // The spec names these objects without their inner shape.
  values_colors: z.record(z.string(), z.unknown()),
  values_images: z.record(z.string(), z.unknown()),
});
export type ProductOption = z.infer<typeof ZProductOption>;

export const ZVariant = z.object({
  id: ZId,
  product_id: ZId,
  title: z.string(),
  sku: z.string(),
  barcode: z.string().nullable(),
  price: ZDecimal,
  compare_at_price: ZDecimal,
  inventory_quantity: z.number().int(),
  inventory_policy: z.string().describe('Samples show continue and deny.'),
  inventory_tracker: z.boolean(),
  inventory_item_id: ZId,
  required_shipping: z.boolean(),
  taxable: z.boolean(),
  position: z.number().int(),
  weight: ZDecimal,
  weight_unit: z.string().describe('Samples show g and kg.'),
  option1: z.string().nullable(),
  option2: z.string().nullable(),
  option3: z.string().nullable(),
  option4: z.string().nullable(),
  option5: z.string().nullable(),
  image: ZProductImage.nullable(),
});
export type Variant = z.infer<typeof ZVariant>;

/**
 * The product of the spec's Product table, every field present. Nullable where the spec says
 * "or null", and also `image`, `featured_media` (a product without images has none to show) and
 * `published_at` (a product that was never published has no publication time).
 */
export const ZProduct = z.object({
  id: ZId,
  title: z.string(),
  subtitle: z.string(),
  handle: z.string(),
  path: z.string(),
  body_html: z.string(),
  vendor: z.string().nullable(),
  product_type: z.string().describe('Samples show NORMAL.'),
  product_category: z.string().nullable(),
  standard_category_id: z.string().nullable(),
  spu: z.string().nullable(),
  template_path: z.string().nullable(),
  combined_listing: z.union([z.string(), z.record(z.string(), z.unknown())]).nullable(),
  combined_listing_role: z.string().nullable(),
  status: z.string().describe('Samples show active and archived.'),
  tags: z.string().describe('Comma-separated.'),
  published_scope: z.string().describe('Samples show web.'),
  product_behavior: z.string().describe('Comma-separated flags, possibly empty.'),
  is_gift_card: z.boolean(),
  published_at: ZIsoTime.nullable(),
  created_at: ZIsoTime,
  updated_at: ZIsoTime,
  image: ZProductImage.nullable(),
  images: z.array(ZProductImage),
  media: z.array(ZProductMedia),
  featured_media: ZProductMedia.nullable(),
  options: z.array(ZProductOption),
  variants: z.array(ZVariant),
});
export type Product = z.infer<typeof ZProduct>;
export type ProductField = keyof Product;

/**
 * A product as the listing returns it. `fields` trims a product to the named top-level fields and
 * `id` is always kept (decisions §6.4), so every other field may be absent; `ZProduct` is the full
 * shape for callers that did not ask for `fields`.
 */
export const ZListedProduct = ZProduct.partial().extend({ id: ZId });
export type ListedProduct = z.infer<typeof ZListedProduct>;

/**
 * Query values stay strings here: the server parses them itself so that a bad `limit` or a tampered
 * `page_info` gets the exact 400 message of decisions §6.
 */
export const ZListProductsQuery = z.object({
  ...pageQuery(),
  fields: z.string().optional().describe(FIELDS_DESCRIPTION),
});
export type ListProductsQuery = z.infer<typeof ZListProductsQuery>;

/** Text or a number, as merchants send it; the server checks the decimal format ("" is no value). */
const ZDecimalInput = documented(z.union([z.string(), z.number()]), {
  anyOf: [
    { type: 'string', pattern: `${PRODUCT_DECIMAL.source}|^$` },
    { type: 'integer', minimum: -9_999_999_999_999, maximum: 9_999_999_999_999 },
  ],
});

export const ZVariantInput = z.object({
  title: z.string().nullish(),
  sku: z.string().nullish(),
  barcode: z.string().nullish(),
  price: ZDecimalInput.nullish(),
  compare_at_price: ZDecimalInput.nullish(),
  inventory_quantity: z.number().int('must be an integer').safe('must be between -9007199254740991 and 9007199254740991').nullish(),
  inventory_policy: z.string().nullish(),
  inventory_tracker: z.boolean().nullish(),
  required_shipping: z.boolean().nullish(),
  taxable: z.boolean().nullish(),
  weight: ZDecimalInput.nullish(),
  weight_unit: z.string().nullish(),
  option1: z.string().nullish(),
  option2: z.string().nullish(),
  option3: z.string().nullish(),
  option4: z.string().nullish(),
  option5: z.string().nullish(),
  cost: ZDecimalInput.nullish().describe("Cost per unit of the variant's inventory item."),
});
export type VariantInput = z.infer<typeof ZVariantInput>;

/** An option's values, at most: a value's id is its option's id * 1000 + its position (apps/api, product-document.ts). */
export const MAX_OPTION_VALUES = 1000;

/**
 * The fields of the Product table a merchant sets; ids and timestamps are the service's
 * (decisions §10). Not `.strict()`: unknown keys are dropped, so a client sending a listed
 * product back does not fail on `id` or `created_at`. Formats (times, decimals) are checked by the
 * server, which owns the messages. `null` on an optional field means "the default".
 */
export const ZProductInput = z.object({
  title: documented(z.string().min(1, "can't be blank"), { pattern: NOT_BLANK }),
  subtitle: z.string().nullish(),
  handle: documented(z.string(), { maxLength: MAX_PRODUCT_HANDLE }).nullish(),
  body_html: z.string().nullish(),
  vendor: z.string().nullish(),
  product_type: z.string().nullish(),
  status: z.string().nullish(),
  tags: z
    .union([z.string(), z.array(z.string())])
    .nullish()
    .describe('Comma-separated text, or an array of tags.'),
  published_scope: z.string().nullish(),
  product_behavior: z.string().nullish(),
  is_gift_card: z.boolean().nullish(),
  published_at: documented(z.string(), TIME_RULES).nullish().describe('ISO 8601 with an offset or Z.'),
  spu: z.string().nullish(),
  product_category: z.string().nullish(),
  standard_category_id: z.string().nullish(),
  template_path: z.string().nullish(),
  combined_listing: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  combined_listing_role: z.string().nullish(),
  images: z.array(z.object({ src: z.string(), alt: z.string().nullish() })).nullish(),
  media: z
    .array(
      z.object({
        src: z.string(),
        alt: z.string().nullish(),
        caption: z.string().nullish(),
        content_type: z.string().nullish(),
        preview_image: z
          .object({ src: z.string() })
          .nullish()
          .describe("The media's preview (a video's poster); absent: the media's own src."),
      }),
    )
    .nullish(),
  options: z
    .array(
      z.object({
        name: z.string(),
        values: z
          .array(z.string())
          .max(MAX_OPTION_VALUES, `is too long (maximum is ${MAX_OPTION_VALUES} values)`)
          .describe(`At most ${MAX_OPTION_VALUES} values an option (each value's id is derived from its option's).`),
      }),
    )
    .nullish(),
  variants: z.array(ZVariantInput).nullish().describe('A product without variants gets one default variant.'),
});
export type ProductInput = z.infer<typeof ZProductInput>;

export const productsContract = c.router(
  {
    listProducts: {
      method: 'GET',
      path: '/products/products.json',
      query: ZListProductsQuery,
      responses: {
        200: z.object({ products: z.array(ZListedProduct) }),
      },
      summary: 'List products, ascending id, cursor-paginated',
      description: 'Follow the URLs of the link header as they stand (rel="next", rel="previous"); no link header means a single page.',
      metadata: { scope: 'read_products', paginated: true } satisfies Omit<AdminRouteMetadata, 'auth'>,
    },
  },
  adminRouterOptions,
);
