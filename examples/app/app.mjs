// A minimal app on the platform, from registration to its first verified webhook (README.md here).
//   PLATFORM_WEBHOOK_ALLOW_PRIVATE=true ./dev.sh start       # in one terminal
//   node examples/app/app.mjs                                # in another
// It registers itself through the operator API, is installed on the demo store through the OAuth
// consent page, keeps its token in the SDK's SQLite store, subscribes to inventory_items/update and
// verifies each delivery, and creates a metafield definition with a rule and sets a value.
//   --manual  prints the sign-in link and the consent page for you to approve in a browser
//             (default: the app approves it over HTTP, as a merchant's browser would)
//   --once    exits after the first verified delivery (the test runs it so)
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOAuth, PlatformApiError, verifyWebhook, WebhookVerificationError } from '@platform/sdk';
import { sqliteTokenStore } from '@platform/sdk/sqlite';
import { approveAsMerchant, localFetch } from './merchant-browser.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = new Set(process.argv.slice(2));
const BASE_URL = (process.env.BASE_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
const STORE = process.env.STORE ?? 'demo';
const API_VERSION = process.env.API_VERSION ?? 'v20260901';
const DATA_DIR = process.env.APP_DATA_DIR ?? join(here, '.data');
// Values on a product are written with write_products; definitions with write_metafields.
const SCOPES = ['write_products', 'read_inventory', 'write_metafields', 'read_store_information'];

/** The operator token: OPERATOR_TOKEN, else the one `./dev.sh start` generated and printed (data/dev-secrets.json). */
function operatorToken() {
  if (process.env.OPERATOR_TOKEN) return process.env.OPERATOR_TOKEN;
  const file = join(here, '..', '..', 'data', 'dev-secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')).operatorToken;
  throw new Error('Set OPERATOR_TOKEN to the operator token `./dev.sh start` printed');
}
const OPERATOR_TOKEN = operatorToken();

async function operator(method, path, body) {
  const response = await fetch(`${BASE_URL}/platform/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  }).catch((error) => {
    throw new Error(
      `The platform is not reachable at ${BASE_URL} (${error.cause?.message ?? error.message}): is \`./dev.sh start\` running? Set BASE_URL if it uses another port.`,
    );
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} /platform/v1${path}: HTTP ${response.status} ${text}`);
  return text ? JSON.parse(text) : {};
}

/** A promise with its resolve and reject at hand (Promise.withResolvers, which Node 20 lacks). */
function deferred() {
  const d = {};
  d.promise = new Promise((resolve, reject) => Object.assign(d, { resolve, reject }));
  return d;
}

// 1. The app's own server: the OAuth callback and the webhook receiver, on a free loopback port.
let oauth;
let appSecret;
let state;
const installed = deferred();
const delivered = deferred();
const seen = new Set();
const server = createServer((request, response) => {
  const url = new URL(request.url, 'http://app');
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', async () => {
    try {
      if (request.method === 'GET' && url.pathname === '/oauth/callback') {
        // The redirect's sign and timestamp, and that customField is this install's (CSRF).
        const { code, handle } = oauth.verifyCallback(url.search, state);
        const token = await oauth.exchangeCode(handle, code);
        response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(`Installed on ${handle}. You can close this tab.\n`);
        return installed.resolve(token);
      }
      if (request.method === 'POST' && url.pathname === '/webhooks') {
        // Nothing is subscribed before the app is registered and knows its secret.
        if (!appSecret) return response.writeHead(503).end();
        // The signature covers the exact bytes received: verify them before parsing anything.
        const webhook = verifyWebhook(Buffer.concat(chunks), request.headers, appSecret);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        if (seen.has(webhook.webhookId)) return; // at least once: the same id may come again
        seen.add(webhook.webhookId);
        const item = webhook.payload.inventory_item;
        console.log(`verified ${webhook.topic} ${webhook.webhookId} from ${webhook.shopDomain}: item ${item?.id} cost ${item?.cost}`);
        return delivered.resolve(webhook);
      }
      response.writeHead(404).end();
    } catch (error) {
      if (error instanceof WebhookVerificationError) {
        console.log(`refused a delivery (${error.reason}): ${error.message}`);
        return response.writeHead(error.status, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: error.message }));
      }
      console.error(error);
      response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error.message));
      if (url.pathname === '/oauth/callback') installed.reject(error);
    }
  });
});
await new Promise((resolve) => server.listen(Number(process.env.APP_PORT ?? 0), '127.0.0.1', resolve));
const appOrigin = `http://127.0.0.1:${server.address().port}`;
console.log(`app listening on ${appOrigin} (OAuth callback ${appOrigin}/oauth/callback, webhooks ${appOrigin}/webhooks)`);

// 2. Register through the operator API: a public app whose callback is this server.
const { app } = await operator('POST', '/apps', {
  app: { name: 'Quick-start app', kind: 'public', scopes: SCOPES, redirect_urls: [`${appOrigin}/oauth/callback`] },
});
appSecret = app.app_secret;
console.log(`registered app ${app.id} (app key ${app.app_key})`);

// 3. Install through the consent page on the store's own host; the token goes to the SQLite store.
mkdirSync(DATA_DIR, { recursive: true });
const tokenFile = join(DATA_DIR, 'tokens.db');
const apiPort = new URL(BASE_URL).port || '80';
oauth = createOAuth({
  appKey: app.app_key,
  appSecret,
  storeOrigin: (handle) => `http://${handle}.localhost:${apiPort}`,
  store: sqliteTokenStore({ filename: tokenFile }),
  fetch: localFetch,
});
state = randomBytes(16).toString('hex');
const authorizeUrl = oauth.authorizeUrl({ handle: STORE, scopes: SCOPES, redirectUri: `${appOrigin}/oauth/callback`, customField: state });
const { url: signInUrl } = await operator('POST', `/stores/${STORE}/admin_sessions`);
if (args.has('--manual')) {
  console.log(`Sign in as the merchant:   ${signInUrl}\nthen approve the app here: ${authorizeUrl}`);
} else {
  const consent = await approveAsMerchant({ signInUrl, authorizeUrl });
  console.log(`approved on the consent page ("${consent.page}"), redirected to ${consent.callback}`);
}
const token = await installed.promise;
const stored = await oauth.store.get(STORE);
console.log(
  `installed on ${STORE}: token ${stored.accessToken.slice(0, 6)}... (scopes ${token.scope}) kept in ${tokenFile} until ${stored.expiresAt}`,
);

// 4. An API client whose token is read from the store (and refreshed before it expires).
const client = oauth.client(STORE, { apiVersion: API_VERSION });
const shop = await client.shop.get();
console.log(`calling the Admin API ${API_VERSION} as ${shop.name} (${shop.handle})`);

// 5. Subscribe to inventory item changes, delivered to this server.
const address = `${appOrigin}/webhooks`;
let subscription;
try {
  ({ webhook: subscription } = await client.admin.createWebhook({ body: { webhook: { topic: 'inventory_items/update', address } } }));
} catch (error) {
  if (error instanceof PlatformApiError && error.status === 422 && /private|http:\/\//.test(error.errors)) {
    throw new Error(`The platform refuses ${address}: start it with PLATFORM_WEBHOOK_ALLOW_PRIVATE=true ./dev.sh start (${error.errors})`);
  }
  throw error;
}
console.log(`subscribed to inventory_items/update at ${address}`);

// 6. A metafield definition with a validation rule, and a value on the first product.
const rule = { name: 'max', value: '40' };
let definition;
try {
  ({ definition } = await client.admin.createMetafieldDefinition({
    body: {
      definition: {
        owner_resource: 'products',
        namespace: 'quickstart',
        key: 'subtitle',
        name: 'Subtitle',
        type: 'single_line_text_field',
        validations: [rule],
      },
    },
  }));
} catch (error) {
  // An earlier run made it: use that one.
  if (!(error instanceof PlatformApiError) || error.status !== 422) throw error;
  for await (const d of client.admin.listMetafieldDefinitions.iterate({ query: { owner_resource: 'products', namespace: 'quickstart' } })) {
    if (d.key === 'subtitle') definition = d;
  }
  if (!definition) throw error;
}
console.log(`definition ${definition.namespace}.${definition.key} (${definition.type}, ${rule.name} ${rule.value} characters)`);
const [product] = (await client.products.list({ limit: 1, fields: ['title', 'variants'] })).products;
const set = { owner_resource: 'products', owner_id: product.id, namespace: 'quickstart', key: 'subtitle' };
const { metafields } = await client.admin.setMetafields({ body: { metafields: [{ ...set, value: 'Hand-made in Lisbon' }] } });
console.log(`value set on product ${product.id} (${product.title}): "${metafields[0].value}"`);
try {
  await client.admin.setMetafields({ body: { metafields: [{ ...set, value: 'x'.repeat(41) }] } });
  throw new Error('a 41-character value was accepted');
} catch (error) {
  if (!(error instanceof PlatformApiError)) throw error;
  console.log(`the rule refused 41 characters: ${error.status} ${error.errors} (traceId ${error.traceId})`);
}

// 7. A change of stock (the operator API stands in for the merchant's stock system): one delivery.
const itemId = product.variants[0].inventory_item_id;
await operator('PUT', `/stores/${STORE}/inventory_items/${itemId}`, { inventory_item: { cost: (Math.random() * 10 + 1).toFixed(2) } });
console.log(`changed inventory item ${itemId}; waiting for the delivery...`);
const timeout = setTimeout(
  () => delivered.reject(new Error('no delivery within 60 s: is the webhook sender running beside the API?')),
  60_000,
);
await delivered.promise;
clearTimeout(timeout);

async function stop() {
  // The subscription points at this process: remove it, so the sender does not retry a closed port.
  await client.admin.deleteWebhook({ params: { id: subscription.id } }).catch(() => undefined);
  server.close();
  server.closeAllConnections();
}
if (args.has('--once')) {
  await stop();
  console.log('done');
} else {
  console.log('listening for more deliveries (Ctrl-C to stop)');
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => void stop().then(() => process.exit(0)));
}
