/*
 * The root README's "Calling the API", through the generated client alone: the operator sets up a
 * store, its products and a private app; the app lists products page by page through `link`, reads
 * the store, defines a metafield with a rule and sets values (one refused 422 by the rule),
 * subscribes a webhook and sends product feedback; then a custom app gets its token through the
 * signed OAuth token call. Every call is an operation of /openapi.json, typed by `schema.d.ts`.
 */
import { randomUUID } from 'node:crypto';
import { nextProductsQuery, platformClient, signedHeaders, type ListProductsQuery } from './client.js';

export interface FlowOptions {
  /** Where the platform listens, e.g. http://127.0.0.1:3000. */
  baseUrl: string;
  /** PLATFORM_OPERATOR_TOKEN (the operator API sets the store and apps up). */
  operatorToken: string;
  /** A new store's handle: 3-63 of a-z, 0-9 and -. */
  handle: string;
  apiVersion?: string;
  log?: (line: string) => void;
}

/** What the flow saw, for a reader (and the test) to check. */
export interface FlowResult {
  pages: { count: number; ids: string[] }[];
  titles: string[];
  shopName: string;
  refusedValue: { status: number; errors: string };
  webhookListed: boolean;
  feedbackStatuses: number[];
  operatorFeedbackStates: string[];
  refusedToken: { status: number; i18nCode: string; message: string };
  oauthScope: string;
  oauthShopHandle: string;
}

/** openapi-fetch answers `{ data }` or `{ error }`: the data, or an error naming the call, its status and the API's message. */
function ok<T>(what: string, result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new Error(`${what}: ${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

export async function runFlow({
  baseUrl,
  operatorToken,
  handle,
  apiVersion = 'v20260901',
  log = () => {},
}: FlowOptions): Promise<FlowResult> {
  const operator = platformClient(baseUrl, operatorToken);
  const version = { version: apiVersion };

  // --- Set-up through the operator API: a store, seven products, a private app with its token.
  ok('createStore', await operator.POST('/platform/v1/stores', { body: { store: { handle, name: `Store ${handle}` } } }));
  const titles = Array.from({ length: 7 }, (_, i) => `Generated ${i + 1}`);
  ok(
    'createProducts',
    await operator.POST('/platform/v1/stores/{handle}/products', {
      params: { path: { handle } },
      body: { products: titles.map((title) => ({ title })) },
    }),
  );
  const privateApp = ok(
    'createApp',
    await operator.POST('/platform/v1/apps', {
      body: {
        app: {
          name: `Generated client ${handle}`,
          kind: 'private',
          scopes: ['write_products', 'write_metafields', 'read_store_information', 'read_inventory'],
          store_handle: handle,
        },
      },
    }),
  );
  if (!privateApp.access_token) throw new Error('createApp: a private app answers its first token');
  const admin = platformClient(baseUrl, privateApp.access_token);

  // --- Products, three a page, following `link` until it has no rel="next".
  const pages: FlowResult['pages'] = [];
  const seen: string[] = [];
  let query: ListProductsQuery | undefined = { limit: 3, fields: 'id,title' };
  while (query) {
    const page = await admin.GET('/admin/openapi/{version}/products/products.json', { params: { path: version, query } });
    const products = ok('listProducts', page).products;
    pages.push({ count: products.length, ids: products.map((p) => p.id) });
    seen.push(...products.map((p) => p.title ?? '(no title)'));
    query = nextProductsQuery(page.response);
  }
  log(`products: ${seen.length} in ${pages.length} pages`);

  // --- The store.
  const shop = ok('getShop', await admin.GET('/admin/openapi/{version}/merchants/shop.json', { params: { path: version } })).data;
  log(`store: ${shop.name} (${shop.handle}), ${shop.currency}, ${shop.iana_timezone}`);

  // --- A metafield definition with rules (3 to 40 characters), a value that keeps them, one that breaks them.
  ok(
    'createMetafieldDefinition',
    await admin.POST('/admin/openapi/{version}/metafield_definition.json', {
      params: { path: version },
      body: {
        definition: {
          owner_resource: 'products',
          namespace: 'custom',
          key: 'subtitle',
          name: 'Subtitle',
          type: 'single_line_text_field',
          validations: [
            { name: 'min', value: '3' },
            { name: 'max', value: '40' },
          ],
        },
      },
    }),
  );
  const productId = pages[0]!.ids[0]!;
  const valuePath = { path: { ...version, id: productId } };
  const value = ok(
    'createProductMetafield',
    await admin.POST('/admin/openapi/{version}/products/{id}/metafields.json', {
      params: valuePath,
      body: { metafield: { namespace: 'custom', key: 'subtitle', value: 'Hand-made in Lisbon' } },
    }),
  ).metafield;
  log(`metafield ${value.namespace}.${value.key} = ${value.value}`);
  const refused = await admin.POST('/admin/openapi/{version}/products/{id}/metafields.json', {
    params: valuePath,
    body: { metafield: { namespace: 'custom', key: 'subtitle', value: 'ab' } },
  });
  if (!refused.error) throw new Error('a value of 2 characters was accepted');
  const refusedValue = { status: refused.response.status, errors: refused.error.errors };
  log(`refused: ${refusedValue.status} ${refusedValue.errors} (traceId ${refused.response.headers.get('traceId')})`);

  // --- A webhook subscription (the key makes a retry of this POST safe), then the app's subscriptions.
  const webhook = ok(
    'createWebhook',
    await admin.POST('/admin/openapi/{version}/webhooks.json', {
      params: { path: version, header: { 'Idempotency-Key': randomUUID() } },
      body: { webhook: { topic: 'inventory_items/update', address: 'https://hooks.example.com/platform' } },
    }),
  ).webhook;
  const webhooks = ok('listWebhooks', await admin.GET('/admin/openapi/{version}/webhooks.json', { params: { path: version } })).webhooks;
  log(`webhook ${webhook.id} on ${webhook.topic}`);

  // --- Product resource feedback: 201 the first time, 200 after; the operator API lists it.
  const feedbackStatuses: number[] = [];
  for (const state of ['require_actions', 'success'] as const) {
    const sent = await admin.POST('/admin/openapi/{version}/products/{product_id}/resource_feedback.json', {
      params: { path: { ...version, product_id: productId } },
      body: {
        resource_feedback: {
          state,
          feedback_generated_at: new Date().toISOString(),
          messages: state === 'success' ? [] : ['Add a description'],
        },
      },
    });
    ok('createResourceFeedback', sent);
    feedbackStatuses.push(sent.response.status);
  }
  const feedback = ok(
    'listProductResourceFeedback',
    await operator.GET('/platform/v1/stores/{handle}/products/{id}/resource_feedback', { params: { path: { handle, id: productId } } }),
  ).resource_feedback;

  // --- A custom app: the operator's install call stands in for the merchant's consent and gives a code,
  // which the signed token call exchanges. A wrong signature is refused in the calls' own envelope.
  const customApp = ok(
    'createApp',
    await operator.POST('/platform/v1/apps', {
      body: { app: { name: `Generated custom ${handle}`, kind: 'custom', scopes: ['read_store_information'], store_handle: handle } },
    }),
  ).app;
  const { code } = ok(
    'installApp',
    await operator.POST('/platform/v1/stores/{handle}/apps/{appId}/install', {
      params: { path: { handle, appId: customApp.id } },
      body: { scopes: ['read_store_information'] },
    }),
  );
  const tokenCall = platformClient(baseUrl);
  const body = { code };
  const rawBody = JSON.stringify(body); // signed and sent as these exact bytes
  const forged = await tokenCall.POST('/admin/oauth/token/create', {
    params: { header: signedHeaders(customApp.app_key, 'not-the-secret', rawBody) },
    body,
    bodySerializer: () => rawBody,
  });
  if (!forged.error) throw new Error('a token call signed with another secret was accepted');
  const refusedToken = { status: forged.response.status, i18nCode: forged.error.i18nCode, message: forged.error.message };
  const created = ok(
    'createOAuthToken',
    await tokenCall.POST('/admin/oauth/token/create', {
      params: { header: signedHeaders(customApp.app_key, customApp.app_secret, rawBody) },
      body,
      bodySerializer: () => rawBody,
    }),
  );
  if (created.i18nCode !== 'SUCCESS') throw new Error(`createOAuthToken: ${created.message}`);
  const oauthShop = ok(
    'getShop',
    await platformClient(baseUrl, created.data.accessToken).GET('/admin/openapi/{version}/merchants/shop.json', {
      params: { path: version },
    }),
  ).data;
  log(`custom app token (${created.data.scope}, until ${created.data.expireTime}) reads ${oauthShop.handle}`);

  return {
    pages,
    titles: seen,
    shopName: shop.name,
    refusedValue,
    webhookListed: webhooks.some((w) => w.id === webhook.id),
    feedbackStatuses,
    operatorFeedbackStates: feedback.map((f) => f.state),
    refusedToken,
    oauthScope: created.data.scope,
    oauthShopHandle: oauthShop.handle,
  };
}
