/**
 * A product is read far more often than it is written, so its JSON is rendered once, at write time,
 * and stored beside the row (`products.doc`). The listing then only concatenates strings: it splices
 * in the id and the three times, which depend on the store's time zone at read time.
 */

export interface ProductInput {
  title: string;
  subtitle?: string | null;
  handle?: string | null;
  body_html?: string | null;
  vendor?: string | null;
  product_type?: string | null;
  product_category?: string | null;
  standard_category_id?: string | null;
  spu?: string | null;
  template_path?: string | null;
  combined_listing?: unknown;
  combined_listing_role?: string | null;
  status?: string | null;
  tags?: string | string[] | null;
  published_scope?: string | null;
  product_behavior?: string | null;
  is_gift_card?: boolean | null;
  published_at?: string | null;
  images?: { src: string; alt?: string | null }[] | null;
  media?:
    | { src: string; alt?: string | null; caption?: string | null; content_type?: string | null; preview_image?: { src: string } | null }[]
    | null;
  options?: { name: string; values: string[] }[] | null;
  variants?: VariantInput[] | null;
}

export interface VariantInput {
  title?: string | null;
  sku?: string | null;
  barcode?: string | null;
  price?: string | number | null;
  compare_at_price?: string | number | null;
  inventory_quantity?: number | null;
  inventory_policy?: string | null;
  inventory_tracker?: boolean | null;
  required_shipping?: boolean | null;
  taxable?: boolean | null;
  weight?: string | number | null;
  weight_unit?: string | null;
  option1?: string | null;
  option2?: string | null;
  option3?: string | null;
  option4?: string | null;
  option5?: string | null;
  cost?: string | number | null;
}

/** Ids the database assigned to a product's parts, in input order. */
export interface ProductIds {
  productId: bigint;
  optionIds: bigint[];
  imageIds: bigint[];
  mediaIds: bigint[];
  variants: { id: bigint; inventoryItemId: bigint }[];
}

export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 255);
  return slug || 'product';
}

export function decimalText(value: string | number | null | undefined, fallback: string): string {
  if (value === null || value === undefined || value === '') return fallback;
  return typeof value === 'number' ? String(value) : value;
}

function variantTitle(v: VariantInput): string {
  if (v.title) return v.title;
  const parts = [v.option1, v.option2, v.option3, v.option4, v.option5].filter((p): p is string => !!p);
  return parts.length > 0 ? parts.join(' / ') : 'Default Title';
}

/** A product without variants gets one default variant, as merchants expect. */
export function variantsOf(input: ProductInput): VariantInput[] {
  return input.variants && input.variants.length > 0 ? input.variants : [{}];
}

/** Option value ids are derived from the option id (at most 1,000 values an option: MAX_OPTION_VALUES, refused by the contract). */
function optionValueId(optionId: bigint, index: number): string {
  return (optionId * 1000n + BigInt(index + 1)).toString();
}

/** The product's JSON object without `id`, `published_at`, `created_at` and `updated_at`. */
export function renderProductDocument(input: ProductInput, ids: ProductIds): string {
  const productId = ids.productId.toString();
  const handle = input.handle || slugify(input.title);
  const images = (input.images ?? []).map((image, i) => ({
    id: ids.imageIds[i]!.toString(),
    src: image.src,
    alt: image.alt ?? '',
  }));
  const media = (input.media ?? []).map((m, i) => ({
    id: ids.mediaIds[i]!.toString(),
    src: m.src,
    alt: m.alt ?? '',
    caption: m.caption ?? '',
    content_type: m.content_type ?? 'IMAGE',
    preview_image: { src: m.preview_image?.src ?? m.src },
  }));
  const options = (input.options ?? []).map((option, i) => {
    const optionId = ids.optionIds[i]!;
    return {
      id: optionId.toString(),
      product_id: productId,
      name: option.name,
      values: option.values,
      option_values: option.values.map((value, j) => ({ id: optionValueId(optionId, j), value })),
      values_colors: {},
      values_images: {},
    };
  });
  const variants = variantsOf(input).map((v, i) => {
    const price = decimalText(v.price, '0.00');
    return {
      id: ids.variants[i]!.id.toString(),
      product_id: productId,
      title: variantTitle(v),
      sku: v.sku ?? '',
      barcode: v.barcode ?? null,
      price,
      compare_at_price: decimalText(v.compare_at_price, price),
      inventory_quantity: v.inventory_quantity ?? 0,
      inventory_policy: v.inventory_policy ?? 'deny',
      inventory_tracker: v.inventory_tracker ?? true,
      inventory_item_id: ids.variants[i]!.inventoryItemId.toString(),
      required_shipping: v.required_shipping ?? true,
      taxable: v.taxable ?? true,
      position: i + 1,
      weight: decimalText(v.weight, '0'),
      weight_unit: v.weight_unit ?? 'kg',
      option1: v.option1 ?? null,
      option2: v.option2 ?? null,
      option3: v.option3 ?? null,
      option4: v.option4 ?? null,
      option5: v.option5 ?? null,
      image: null,
    };
  });
  const doc = {
    title: input.title,
    subtitle: input.subtitle ?? '',
    handle,
    path: `/products/${handle}`,
    body_html: input.body_html ?? '',
    vendor: input.vendor ?? null,
    product_type: input.product_type ?? 'NORMAL',
    product_category: input.product_category ?? null,
    standard_category_id: input.standard_category_id ?? null,
    spu: input.spu ?? null,
    template_path: input.template_path ?? null,
    combined_listing: input.combined_listing ?? null,
    combined_listing_role: input.combined_listing_role ?? null,
    status: input.status ?? 'active',
    tags: Array.isArray(input.tags) ? input.tags.join(', ') : (input.tags ?? ''),
    published_scope: input.published_scope ?? 'web',
    product_behavior: input.product_behavior ?? '',
    is_gift_card: input.is_gift_card ?? false,
    image: images[0] ?? null,
    images,
    media,
    featured_media: media[0] ?? null,
    options,
    variants,
  };
  return JSON.stringify(doc);
}

/** The fields of a product a PATCH may change, merged over the stored input. */
export function mergeProductInput(stored: ProductInput, patch: Partial<ProductInput>): ProductInput {
  const merged: Record<string, unknown> = { ...stored };
  for (const [key, value] of Object.entries(patch)) {
    if (value !== undefined) merged[key] = value;
  }
  return merged as unknown as ProductInput;
}
