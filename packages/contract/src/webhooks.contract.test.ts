import { describe, expect, it } from 'vitest';
import { generateOpenApiDocument } from './openapi';
import { operatorWebhooksContract, webhookPayloadSchemas, webhooksContract, ZInventoryItemWebhook } from './webhooks.contract';

describe('webhook subscription routes (decisions §11.1)', () => {
  it('live under the Admin prefix, with the /{id}/webhooks.json alias', () => {
    const routes = Object.entries(webhooksContract).map(([key, route]) => `${key} ${route.method} ${route.path}`);
    expect(routes).toEqual([
      'createWebhook POST /admin/openapi/:version/webhooks.json',
      'listWebhooks GET /admin/openapi/:version/webhooks.json',
      'getWebhook GET /admin/openapi/:version/webhooks/:id.json',
      'updateWebhook PUT /admin/openapi/:version/webhooks/:id.json',
      'deleteWebhook DELETE /admin/openapi/:version/webhooks/:id.json',
      'getWebhookAlias GET /admin/openapi/:version/:id/webhooks.json',
      'updateWebhookAlias PUT /admin/openapi/:version/:id/webhooks.json',
      'deleteWebhookAlias DELETE /admin/openapi/:version/:id/webhooks.json',
    ]);
  });

  it('admit either topic read scope (decisions §5.5)', () => {
    for (const route of Object.values(webhooksContract)) {
      expect(route.metadata).toMatchObject({ auth: 'app', scope: 'read_inventory', orScopes: ['read_fulfillments'] });
    }
  });

  it('appear in the OpenAPI document with both scopes named', () => {
    const document = generateOpenApiDocument() as { paths: Record<string, Record<string, { operationId?: string; description?: string }>> };
    const create = document.paths['/admin/openapi/{version}/webhooks.json']?.['post'];
    expect(create?.operationId).toBe('createWebhook');
    expect(create?.description).toContain('`read_inventory` or `read_fulfillments`');
    expect(document.paths['/platform/v1/stores/{handle}/webhooks/deliveries']?.['get']?.operationId).toBe('listWebhookDeliveries');
  });
});

describe('webhook payload schemas (decisions §11.3)', () => {
  it('map each topic to its body', () => {
    expect(Object.keys(webhookPayloadSchemas)).toEqual(['inventory_items/update', 'fulfillment_order/released']);
    expect(
      webhookPayloadSchemas['fulfillment_order/released'].safeParse({ fulfillment_order: { id: '1', status: 'released' } }).success,
    ).toBe(true);
  });

  it('type the inventory item as the spec table does (ids as strings, tracked a boolean)', () => {
    const item = {
      id: '1',
      variant_id: '2',
      sku: 'A',
      cost: '1.50',
      tracked: true,
      location_type: 'normal',
      fulfillment_location_id: null,
      created_at: '2026-11-22T12:05:01+08:00',
      updated_at: '2026-11-22T12:05:01+08:00',
    };
    expect(ZInventoryItemWebhook.safeParse({ inventory_item: item }).success).toBe(true);
    expect(ZInventoryItemWebhook.safeParse({ inventory_item: { ...item, id: 1 } }).success).toBe(false);
    expect(ZInventoryItemWebhook.safeParse({ inventory_item: { ...item, created_at: '2026-11-22 12:05' } }).success).toBe(false);
  });

  it('operator routes are marked for the operator token', () => {
    for (const route of Object.values(operatorWebhooksContract)) expect(route.metadata).toMatchObject({ auth: 'operator' });
  });
});
