import { SCOPES } from '@platform/domain';
import { AppsService } from '../apps/apps.service';
import type { Platform } from '../bootstrap';
import { DEMO_HANDLE } from '../config';
import type { ProductInput } from '../products/product-document';
import { InventoryService } from '../inventory/inventory.service';
import { ProductsWriteService } from '../products/products-write.service';
import { StoresService } from '../stores/stores.service';
import { TokensService } from '../tokens/tokens.service';

const DEMO_PRODUCTS = 1000;

const COLORS = ['Red', 'Green', 'Blue', 'Black'];
const SIZES = ['S', 'M', 'L'];
const CENTS = ['00', '25', '50', '75'];

export function demoProduct(n: number): ProductInput {
  return {
    title: `Demo product ${n}`,
    body_html: `<p>Demo product number ${n}.</p>`,
    vendor: n % 3 === 0 ? null : 'Demo Vendor',
    product_type: 'NORMAL',
    status: n % 10 === 0 ? 'archived' : 'active',
    tags: `demo, batch-${Math.ceil(n / 100)}`,
    images: [{ src: `https://cdn.example.com/demo/${n}.png`, alt: `Demo product ${n}` }],
    media: [{ src: `https://cdn.example.com/demo/${n}.png`, alt: `Demo product ${n}`, content_type: 'IMAGE' }],
    options: [
      { name: 'Color', values: COLORS.slice(0, 2) },
      { name: 'Size', values: SIZES },
    ],
    variants: COLORS.slice(0, 2).flatMap((color, i) =>
      SIZES.slice(0, 2).map((size, j) => ({
        sku: `DEMO-${n}-${color[0]}${size}`,
        price: `${10 + (n % 90)}.${CENTS[i * 2 + j]}`,
        inventory_quantity: (n * 7 + i + j) % 50,
        weight: '0.5',
        weight_unit: 'kg',
        option1: color,
        option2: size,
        cost: '4.00',
      })),
    ),
  };
}

export interface DemoSeed {
  created: boolean;
  /** The token to print: known on the run that made it, or when given as PLATFORM_DEMO_TOKEN. */
  token: string | undefined;
  tokenValid: boolean;
}

/**
 * decisions §12.2: on first run, a demo store with a private app holding every scope and 1,000
 * products. Its token is random like every token (decisions §5.1), or PLATFORM_DEMO_TOKEN when
 * given (the start command keeps one in data/dev-secrets.json so every start can print it); only
 * its hash is stored.
 */
export async function seedDemo(platform: Platform): Promise<DemoSeed> {
  const { app, config } = platform;
  const given = config.demoToken;
  const stores = app.get(StoresService);
  if (await stores.find(DEMO_HANDLE)) {
    if (!given) return { created: false, token: undefined, tokenValid: false };
    return { created: false, token: given, tokenValid: await app.get(TokensService).isLive(given) };
  }
  await stores.create({ handle: DEMO_HANDLE, name: 'Demo Store', iana_timezone: 'UTC', currency: 'USD' });
  const created = await app
    .get(AppsService)
    .create({ name: 'Demo private app', kind: 'private', scopes: [...SCOPES], store_handle: DEMO_HANDLE }, given);
  const products = app.get(ProductsWriteService);
  for (let start = 1; start <= DEMO_PRODUCTS; start += 250) {
    const batch = Array.from({ length: Math.min(250, DEMO_PRODUCTS - start + 1) }, (_, i) => demoProduct(start + i));
    await products.create(DEMO_HANDLE, batch);
  }
  const inventory = app.get(InventoryService);
  for (let n = 0; n < 3; n++) await inventory.createFulfillmentOrder(DEMO_HANDLE);
  return { created: true, token: 'access_token' in created ? created.access_token : given, tokenValid: true };
}
