// Pages through the demo store's products with the SDK.
//   TOKEN=<demo token> node examples/sdk-list-products.mjs
import { createClient, PlatformApiError } from '@platform/sdk';

const client = createClient({
  baseUrl: process.env.BASE_URL ?? 'http://127.0.0.1:3000',
  accessToken: process.env.TOKEN ?? '',
  apiVersion: process.env.API_VERSION ?? 'v20260901',
});

try {
  const first = await client.products.list({ limit: 5, fields: ['id', 'title'] });
  console.log('first page:', first.products.map((p) => `${p.id} ${p.title}`).join(' | '));
  console.log('next page URL:', first.link.next);

  let count = 0;
  for await (const product of client.products.iterate({ limit: 250, fields: ['id'] })) {
    count++;
    if (count === 1) console.log('iterating from product', product.id);
  }
  console.log(`iterated ${count} products`);
} catch (error) {
  if (error instanceof PlatformApiError) {
    console.error(`API error ${error.status}: ${error.errors} (traceId ${error.traceId})`);
    process.exit(1);
  }
  throw error;
}
