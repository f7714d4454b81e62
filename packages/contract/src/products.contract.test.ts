import { describe, expect, it } from 'vitest';
import { commonResponses, ZErrorBody } from './common';
import { adminContract } from './contract';
import { ZListedProduct, ZListProductsQuery, ZProduct, ZProductInput, type Product } from './products.contract';

/** A product shaped like the spec's listing sample (Product table and Variant fields). */
function sampleProduct(overrides: Partial<Product> = {}): Product {
  const image = { id: '7001', src: 'https://img.example/a.png', alt: 'front' };
  const media = {
    id: '8001',
    src: 'https://img.example/a.png',
    alt: 'front',
    caption: '',
    content_type: 'IMAGE',
    preview_image: { src: 'https://img.example/a.png' },
  };
  return {
    id: '1001',
    title: 'Linen shirt',
    subtitle: 'Summer',
    handle: 'linen-shirt',
    path: '/products/linen-shirt',
    body_html: '<p>Light</p>',
    vendor: null,
    product_type: 'NORMAL',
    product_category: null,
    standard_category_id: null,
    spu: 'SPU-1',
    template_path: null,
    combined_listing: null,
    combined_listing_role: null,
    status: 'active',
    tags: 'summer, linen',
    published_scope: 'web',
    product_behavior: '',
    is_gift_card: false,
    published_at: '2026-11-22T12:05:01+08:00',
    created_at: '2026-11-22T12:05:01+08:00',
    updated_at: '2026-11-22T12:05:01+08:00',
    image,
    images: [image],
    media: [media],
    featured_media: media,
    options: [
      {
        id: '9001',
        product_id: '1001',
        name: 'Size',
        values: ['S', 'M'],
        option_values: [
          { id: '9001001', value: 'S' },
          { id: '9001002', value: 'M' },
        ],
        values_colors: {},
        values_images: {},
      },
    ],
    variants: [
      {
        id: '5001',
        product_id: '1001',
        title: 'S',
        sku: 'SHIRT-S',
        barcode: null,
        price: '19.90',
        compare_at_price: '25.00',
        inventory_quantity: 3,
        inventory_policy: 'deny',
        inventory_tracker: true,
        inventory_item_id: '6001',
        required_shipping: true,
        taxable: true,
        position: 1,
        weight: '0.2',
        weight_unit: 'kg',
        option1: 'S',
        option2: null,
        option3: null,
        option4: null,
        option5: null,
        image: null,
      },
    ],
    ...overrides,
  };
}

describe('ZProduct', () => {
  it('accepts a product with every field of the spec', () => {
    const product = sampleProduct();
    expect(ZProduct.parse(product)).toEqual(product);
  });

  it('accepts null where the spec says "or null", and combined_listing as an object', () => {
    const product = sampleProduct({ vendor: null, spu: null, combined_listing: { parent: '1' }, combined_listing_role: null });
    expect(ZProduct.safeParse(product).success).toBe(true);
  });

  it('accepts a product without images (image and featured_media null)', () => {
    expect(ZProduct.safeParse(sampleProduct({ image: null, images: [], media: [], featured_media: null })).success).toBe(true);
  });

  it('rejects a numeric id: ids are decimal strings (decisions §3.5)', () => {
    expect(ZProduct.safeParse({ ...sampleProduct(), id: 1001 }).success).toBe(false);
    expect(ZProduct.safeParse({ ...sampleProduct(), id: 'gid://platform/Product/1' }).success).toBe(false);
  });

  it('rejects a time without an offset (decisions §3.3)', () => {
    expect(ZProduct.safeParse(sampleProduct({ created_at: '2026-11-22T12:05:01' })).success).toBe(false);
  });

  it('rejects a product missing a field of the table', () => {
    const { tags: _tags, ...withoutTags } = sampleProduct();
    expect(ZProduct.safeParse(withoutTags).success).toBe(false);
  });

  it('rejects a price that is a number rather than decimal text', () => {
    const product = sampleProduct();
    const variant = { ...product.variants[0], price: 19.9 };
    expect(ZProduct.safeParse({ ...product, variants: [variant] }).success).toBe(false);
  });

  it('rejects null in a field the spec does not make nullable', () => {
    expect(ZProduct.safeParse({ ...sampleProduct(), title: null }).success).toBe(false);
  });
});

describe('ZListedProduct', () => {
  it('accepts a product trimmed by fields to id and title (decisions §6.4)', () => {
    expect(ZListedProduct.parse({ id: '1', title: 'x' })).toEqual({ id: '1', title: 'x' });
  });

  it('still requires the id', () => {
    expect(ZListedProduct.safeParse({ title: 'x' }).success).toBe(false);
  });

  it('still checks the fields that are present', () => {
    expect(ZListedProduct.safeParse({ id: '1', is_gift_card: 'no' }).success).toBe(false);
  });
});

describe('listProducts route', () => {
  it('is GET /admin/openapi/:version/products/products.json needing read_products (decisions §5.5)', () => {
    expect(adminContract.listProducts.method).toBe('GET');
    expect(adminContract.listProducts.path).toBe('/admin/openapi/:version/products/products.json');
    expect(adminContract.listProducts.metadata).toEqual({ auth: 'app', scope: 'read_products', paginated: true });
  });

  it('keeps query values as strings for the server to parse, so a bad limit reaches its 400 message', () => {
    expect(ZListProductsQuery.parse({ limit: 'abc', since_id: '0', fields: 'id,title' })).toEqual({
      limit: 'abc',
      since_id: '0',
      fields: 'id,title',
    });
  });

  it('declares every common error status with the error body', () => {
    const statuses = Object.keys(adminContract.listProducts.responses)
      .map(Number)
      .sort((a, b) => a - b);
    expect(statuses).toEqual([200, 400, 401, 402, 403, 404, 413, 422, 423, 429, 500]);
    expect(adminContract.listProducts.responses[401]).toBe(commonResponses[401]);
  });

  it('lists products under "products"', () => {
    const body = adminContract.listProducts.responses[200].parse({ products: [sampleProduct(), { id: '2' }] });
    expect(body.products).toHaveLength(2);
  });
});

describe('ZErrorBody', () => {
  it('accepts {"errors": message} and rejects other shapes (decisions §4)', () => {
    expect(ZErrorBody.parse({ errors: 'Not Found' })).toEqual({ errors: 'Not Found' });
    expect(ZErrorBody.safeParse({ error: 'Not Found' }).success).toBe(false);
    expect(ZErrorBody.safeParse({ errors: ['a', 'b'] }).success).toBe(false);
  });
});

describe('ZProductInput', () => {
  it('requires a non-empty title', () => {
    expect(ZProductInput.safeParse({}).success).toBe(false);
    expect(ZProductInput.safeParse({ title: '' }).success).toBe(false);
    expect(ZProductInput.parse({ title: 'Shirt' })).toEqual({ title: 'Shirt' });
  });

  it('drops ids and timestamps rather than failing, so a listed product can be sent back', () => {
    const parsed = ZProductInput.parse(sampleProduct({ image: null, images: [], media: [], featured_media: null, options: [] }));
    expect(parsed.title).toBe('Linen shirt');
    for (const serviceField of ['id', 'created_at', 'updated_at', 'path']) expect(parsed).not.toHaveProperty(serviceField);
  });

  it('takes the merchant fields, variants with decimals as text or numbers, and tags as text or an array', () => {
    const input = {
      title: 'Shirt',
      tags: ['a', 'b'],
      status: 'active',
      published_at: '2026-11-22T12:05:01+08:00',
      images: [{ src: 'https://img.example/a.png', alt: 'front' }],
      media: [{ src: 'https://img.example/a.png', content_type: 'IMAGE' }],
      options: [{ name: 'Size', values: ['S'] }],
      variants: [{ sku: 'S', price: '19.90', compare_at_price: 25, inventory_quantity: 3, option1: 'S', cost: '5.00' }],
    };
    expect(ZProductInput.parse(input)).toEqual(input);
  });

  it('rejects a fractional inventory quantity and an image without src', () => {
    expect(ZProductInput.safeParse({ title: 'x', variants: [{ inventory_quantity: 1.5 }] }).success).toBe(false);
    expect(ZProductInput.safeParse({ title: 'x', images: [{ alt: 'no src' }] }).success).toBe(false);
  });
});
