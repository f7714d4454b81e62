// Pages through the demo store's products with the SDK.
//   TOKEN=<demo token> node examples/sdk-list-products.mjs
// TOKEN is the "Demo token" `./dev.sh start` prints. BASE_URL is where the API listens
// (default http://127.0.0.1:3000): set it when the platform runs on another port, e.g.
//   PORT=3100 ./dev.sh start   then   BASE_URL=http://127.0.0.1:3100 TOKEN=... node examples/sdk-list-products.mjs
import { createClient, PlatformApiError, PlatformNetworkError } from '@platform/sdk';

if (!process.env.TOKEN) {
  console.error('TOKEN is required: the "Demo token" line of `./dev.sh start`');
  process.exit(2);
}
const client = createClient({
  baseUrl: process.env.BASE_URL ?? 'http://127.0.0.1:3000',
  accessToken: process.env.TOKEN,
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
  if (error instanceof PlatformNetworkError) {
    // The message names the host and port it tried: another port needs BASE_URL.
    console.error(`${error.message}\nIs \`./dev.sh start\` running there? Set BASE_URL if it listens elsewhere.`);
    process.exit(1);
  }
  throw error;
}
