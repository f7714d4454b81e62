/*
 * Every Admin route, called through its generic method against the real API (decisions §12.3:
 * apps/api/dist/main.js on loopback, SQLite file). Table-driven: a route added to the contract gets
 * a method by itself (see routes.test.ts); give it a row here and it is tested live too.
 */
import { adminContract } from '@platform/contract';
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient, PlatformApiError, type PlatformClient } from '../src/index';
import { sharedLiveServer, VERSION, type LiveServer } from './live-server';

type AdminRouteKey = keyof typeof adminContract;

interface Ctx {
  client: PlatformClient;
  server: LiveServer;
  handle: string;
  productIds: string[];
  /** Things one row leaves for the next (ids it created). */
  state: Record<string, string>;
}

type LiveCase = (ctx: Ctx) => Promise<void>;

const DEFINITION = { owner_resource: 'products', namespace: 'sdk_live', key: 'subtitle', name: 'Subtitle', type: 'single_line_text_field' };

/** In order: later rows use what earlier ones created. */
const LIVE_CASES: [AdminRouteKey, LiveCase][] = [
  [
    'listProducts',
    async ({ client, productIds }) => {
      const page = await client.admin.listProducts({ query: { limit: 2, fields: ['title'] } });
      expect(page.products).toEqual([
        { id: productIds[0], title: 'Live 0' },
        { id: productIds[1], title: 'Live 1' },
      ]);
      expect(page.next).toMatchObject({ limit: 2, fields: ['id', 'title'].filter((f) => page.next!.fields!.includes(f)) });
      expect(page.next!.pageInfo).not.toBe('');
      expect(page.previous).toBeUndefined();
      const second = await client.admin.listProducts.page(page.next!);
      expect(second.products.map((p) => p.id)).toEqual(productIds.slice(2, 4));
      expect(second.previous?.url).toBe(second.link.previous);
      const all: string[] = [];
      for await (const product of client.admin.listProducts.iterate({ query: { limit: 3 } })) all.push(product.id);
      expect(all).toEqual(productIds);
    },
  ],
  [
    'getShop',
    async ({ client, handle }) => {
      const { data } = await client.admin.getShop();
      expect(data.handle).toBe(handle);
      expect(data.iana_timezone).toEqual(expect.any(String));
    },
  ],
  [
    'createMetafieldDefinition',
    async ({ client, state }) => {
      const { definition } = await client.admin.createMetafieldDefinition({
        body: { definition: { ...DEFINITION, validations: [{ name: 'min', value: '3' }] } },
      });
      expect(definition).toMatchObject({ ...DEFINITION, validations: [{ name: 'min', value: '3' }], access: null });
      state.definitionId = definition.id;
    },
  ],
  [
    'getMetafieldDefinition',
    async ({ client, state }) => {
      const { definition } = await client.admin.getMetafieldDefinition({ query: { id: state.definitionId } });
      expect(definition.id).toBe(state.definitionId);
    },
  ],
  [
    'updateMetafieldDefinition',
    async ({ client, state }) => {
      const { definition } = await client.admin.updateMetafieldDefinition({
        body: { definition: { owner_resource: 'products', namespace: 'sdk_live', key: 'subtitle', name: 'Sub-title' } },
      });
      expect(definition).toMatchObject({ id: state.definitionId, name: 'Sub-title' });
    },
  ],
  [
    'listMetafieldDefinitions',
    async ({ client, state }) => {
      const page = await client.admin.listMetafieldDefinitions({ query: { namespace: 'sdk_live', limit: 10 } });
      expect(page.metafield_definitions.map((d) => d.id)).toEqual([state.definitionId]);
      expect(page.link).toEqual({});
      const ids: string[] = [];
      for await (const d of client.admin.listMetafieldDefinitions.iterate({ query: { limit: 1 } })) ids.push(d.id);
      expect(ids).toEqual([state.definitionId]);
    },
  ],
  [
    'createProductMetafield',
    async ({ client, productIds, state }) => {
      const { metafield } = await client.admin.createProductMetafield({
        params: { id: productIds[0]! },
        body: { metafield: { namespace: 'sdk_live', key: 'subtitle', value: 'Hand-made' } },
      });
      expect(metafield).toMatchObject({ owner_id: productIds[0], value: 'Hand-made', type: 'single_line_text_field' });
      state.metafieldId = metafield.id;
      // The definition's rule runs on the value: a typed error, with the request that failed.
      const error = await client.admin
        .createProductMetafield({
          params: { id: productIds[0]! },
          body: { metafield: { namespace: 'sdk_live', key: 'subtitle', value: 'ab' } },
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PlatformApiError);
      expect(error).toMatchObject({
        status: 422,
        method: 'POST',
        path: `/admin/openapi/${VERSION}/products/${productIds[0]}/metafields.json`,
      });
      expect((error as PlatformApiError).errors).toMatch(/rule min/);
    },
  ],
  [
    'listProductMetafields',
    async ({ client, productIds, state }) => {
      const page = await client.admin.listProductMetafields({ params: { id: productIds[0]! }, query: { limit: 5 } });
      expect(page.metafields.map((m) => m.id)).toEqual([state.metafieldId]);
      const ids: string[] = [];
      for await (const m of client.admin.listProductMetafields.iterate({ params: { id: productIds[0]! } })) ids.push(m.id);
      expect(ids).toEqual([state.metafieldId]);
    },
  ],
  [
    'getProductMetafield',
    async ({ client, productIds, state }) => {
      const { metafield } = await client.admin.getProductMetafield({ params: { id: productIds[0]!, metafieldId: state.metafieldId! } });
      expect(metafield.value).toBe('Hand-made');
    },
  ],
  [
    'updateProductMetafield',
    async ({ client, productIds, state }) => {
      const { metafield } = await client.admin.updateProductMetafield({
        params: { id: productIds[0]!, metafieldId: state.metafieldId! },
        body: { metafield: { value: 'Made by hand' } },
      });
      expect(metafield.value).toBe('Made by hand');
    },
  ],
  [
    'setMetafields',
    async ({ client, productIds }) => {
      const { metafields } = await client.admin.setMetafields({
        body: {
          metafields: productIds
            .slice(1, 3)
            .map((id) => ({ owner_resource: 'products', owner_id: id, namespace: 'sdk_live', key: 'subtitle', value: `Bulk ${id}` })),
        },
      });
      expect(metafields.map((m) => [m.owner_id, m.value])).toEqual(productIds.slice(1, 3).map((id) => [id, `Bulk ${id}`]));
    },
  ],
  [
    'deleteProductMetafield',
    async ({ client, productIds, state }) => {
      const args = { params: { id: productIds[0]!, metafieldId: state.metafieldId! } };
      expect(await client.admin.deleteProductMetafield(args)).toEqual({});
      await expect(client.admin.getProductMetafield(args)).rejects.toMatchObject({ status: 404 });
    },
  ],
  [
    'deleteMetafieldDefinition',
    async ({ client, state }) => {
      expect(
        await client.admin.deleteMetafieldDefinition({ query: { id: state.definitionId, delete_all_associated_metafields: true } }),
      ).toEqual({});
      const error = await client.admin.getMetafieldDefinition({ query: { id: state.definitionId } }).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 404, method: 'GET', path: `/admin/openapi/${VERSION}/metafield_definition.json` });
      expect((error as PlatformApiError).traceId).toMatch(/^[0-9a-f-]{36}$/);
    },
  ],
  [
    'createResourceFeedback',
    async ({ client, productIds }) => {
      const body = {
        resource_feedback: { state: 'requires_action', feedback_generated_at: '2026-11-20T10:00:00Z', messages: ['Add a size chart'] },
      };
      const { resource_feedback } = await client.admin.createResourceFeedback({ params: { product_id: productIds[3]! }, body });
      expect(resource_feedback).toMatchObject({
        resource_id: productIds[3],
        resource_type: 'Product',
        state: 'require_actions',
        messages: ['Add a size chart'],
      });
      const error = await client.admin
        .createResourceFeedback({
          params: { product_id: productIds[3]! },
          body: { resource_feedback: { ...body.resource_feedback, state: 'maybe' } },
        })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 422, method: 'POST' });
    },
  ],
  [
    'createWebhook',
    async ({ client, state }) => {
      const { webhook } = await client.admin.createWebhook({
        body: { webhook: { topic: 'inventory_items/update', address: 'https://hooks.example.com/sdk-live' } },
      });
      expect(webhook).toMatchObject({
        topic: 'inventory_items/update',
        address: 'https://hooks.example.com/sdk-live',
        status: 'enabled',
        api_version: VERSION,
      });
      state.webhookId = webhook.id;
    },
  ],
  [
    'listWebhooks',
    async ({ client, state }) => {
      const page = await client.admin.listWebhooks({ query: { limit: 5 } });
      expect(page.webhooks.map((w) => w.id)).toEqual([state.webhookId]);
      const ids: string[] = [];
      for await (const w of client.admin.listWebhooks.iterate({ query: { limit: 1 } })) ids.push(w.id);
      expect(ids).toEqual([state.webhookId]);
    },
  ],
  [
    'getWebhook',
    async ({ client, state }) => {
      const { webhook } = await client.admin.getWebhook({ params: { id: state.webhookId! } });
      expect(webhook.id).toBe(state.webhookId);
    },
  ],
  [
    'getWebhookAlias',
    async ({ client, state }) => {
      const { webhook } = await client.admin.getWebhookAlias({ params: { id: state.webhookId! } });
      expect(webhook.id).toBe(state.webhookId);
    },
  ],
  [
    'updateWebhook',
    async ({ client, state }) => {
      const { webhook } = await client.admin.updateWebhook({ params: { id: state.webhookId! }, body: { webhook: { status: 'disabled' } } });
      expect(webhook.status).toBe('disabled');
    },
  ],
  [
    'updateWebhookAlias',
    async ({ client, state }) => {
      const { webhook } = await client.admin.updateWebhookAlias({
        params: { id: state.webhookId! },
        body: { webhook: { status: 'enabled' } },
      });
      expect(webhook.status).toBe('enabled');
    },
  ],
  [
    'deleteWebhook',
    async ({ client, state }) => {
      expect(await client.admin.deleteWebhook({ params: { id: state.webhookId! } })).toEqual({});
      await expect(client.admin.getWebhook({ params: { id: state.webhookId! } })).rejects.toMatchObject({ status: 404 });
    },
  ],
  [
    'deleteWebhookAlias',
    async ({ client }) => {
      const { webhook } = await client.admin.createWebhook({
        body: { webhook: { topic: 'fulfillment_order/released', address: 'https://hooks.example.com/sdk-live-2' } },
      });
      expect(await client.admin.deleteWebhookAlias({ params: { id: webhook.id } })).toEqual({});
      await expect(client.admin.getWebhookAlias({ params: { id: webhook.id } })).rejects.toMatchObject({ status: 404, method: 'GET' });
    },
  ],
];

let server: LiveServer;
let ctx: Ctx;

beforeAll(async () => {
  server = await sharedLiveServer();
  const handle = 'sdk-live';
  await server.createStore(handle);
  const { token } = await server.createPrivateApp(handle);
  const productIds = await server.createProducts(handle, 7, (i) => ({ title: `Live ${i}` }));
  ctx = {
    server,
    handle,
    productIds,
    state: {},
    client: createClient({ baseUrl: server.origin, accessToken: token, apiVersion: VERSION, rateLimit: false }),
  };
}, 120_000);
describe('every Admin route against the real API', () => {
  for (const [key, run] of LIVE_CASES) {
    it(`${key}: ${adminContract[key].method} ${adminContract[key].path}`, () => run(ctx));
  }

  it('has a live row for every Admin route of the contract (add one for a new route)', () => {
    const tested = new Set(LIVE_CASES.map(([key]) => key));
    const missing = Object.keys(adminContract).filter((key) => !tested.has(key as AdminRouteKey));
    expect(missing, `Admin routes without a live row in test/admin-routes.live.test.ts: ${missing.join(', ')}`).toEqual([]);
  });
});
