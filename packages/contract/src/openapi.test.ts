/* eslint-disable @typescript-eslint/no-explicit-any -- the generated document is read as plain JSON */
import { describe, expect, it } from 'vitest';
import { contract } from './contract';
import { generateOpenApiDocument } from './openapi';
import { ZProduct } from './products.contract';
import { ZShop } from './shop.contract';

type Schema = { type?: string; properties?: Record<string, Schema>; items?: Schema; $ref?: string; required?: string[] };
type Response = { description: string; headers?: Record<string, { $ref: string }>; content?: { 'application/json': { schema: Schema } } };
type Operation = {
  operationId: string;
  security: Record<string, string[]>[];
  responses: Record<string, Response>;
  parameters: { name: string; in: string }[];
};
type Document = {
  openapi: string;
  info: { title: string; description: string };
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, { type: string; scheme: string }>;
    headers: Record<string, unknown>;
    schemas: Record<string, Schema>;
  };
};

const document = generateOpenApiDocument() as Document;
const listProducts = document.paths['/admin/openapi/{version}/products/products.json']?.['get'];

const routes = [...Object.entries(contract.admin), ...Object.entries(contract.operator), ...Object.entries(contract.oauth)].map(
  ([key, route]) => ({
    key,
    method: route.method.toLowerCase(),
    path: route.path.replace(/:(\w+)/g, '{$1}'),
  }),
);

describe(generateOpenApiDocument.name, () => {
  it('is an OpenAPI 3.1 document titled Platform Admin API, served relative to its own host', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.title).toBe('Platform Admin API');
    expect(document.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });

  it.each(routes)('includes $key as $method $path', ({ key, method, path }) => {
    expect(document.paths[path]?.[method]?.operationId).toBe(key);
  });

  it('has no path the contract does not declare', () => {
    const declared = new Set(routes.map((r) => `${r.method} ${r.path}`));
    const documented = Object.entries(document.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
    expect(documented.sort()).toEqual([...declared].sort());
  });

  it('describes every product field in the listing response (zod 3 yields real schemas, not empty ones)', () => {
    const items = listProducts?.responses['200']?.content?.['application/json'].schema.properties?.['products']?.items;
    expect(Object.keys(items?.properties ?? {})).toEqual(Object.keys(ZProduct.shape));
    expect(items?.required).toEqual(['id']);
    expect(items?.properties?.['variants']?.items?.properties?.['price']?.type).toBe('string');
    expect(Object.keys(items?.properties?.['variants']?.items?.properties ?? {})).toContain('inventory_item_id');
  });

  it('describes the shop response', () => {
    const op = document.paths['/admin/openapi/{version}/merchants/shop.json']?.['get'];
    const data = op?.responses['200']?.content?.['application/json'].schema.properties?.['data'];
    expect(Object.keys(data?.properties ?? {})).toEqual(Object.keys(ZShop.shape));
  });

  it('describes bearer auth: the app token on Admin routes, the operator token on operator routes', () => {
    expect(document.components.securitySchemes['accessToken']).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.components.securitySchemes['operatorToken']).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(listProducts?.security).toEqual([{ accessToken: [] }]);
    expect(document.paths['/platform/v1/stores']?.['post']?.security).toEqual([{ operatorToken: [] }]);
  });

  it('declares the traceId header on every response, errors included (decisions §3.2)', () => {
    for (const { method, path } of routes) {
      for (const response of Object.values(document.paths[path]?.[method]?.responses ?? {})) {
        expect(response.headers?.['traceId']).toEqual({ $ref: '#/components/headers/TraceId' });
      }
    }
    expect(document.components.headers).toHaveProperty('TraceId.required', true);
  });

  it('declares the link header on the listing page only', () => {
    expect(listProducts?.responses['200']?.headers?.['link']).toEqual({ $ref: '#/components/headers/Link' });
    expect(listProducts?.responses['400']?.headers).not.toHaveProperty('link');
    expect(document.paths['/admin/openapi/{version}/merchants/shop.json']?.['get']?.responses['200']?.headers).not.toHaveProperty('link');
  });

  it('declares Retry-After on 429', () => {
    expect(listProducts?.responses['429']?.headers?.['Retry-After']).toEqual({ $ref: '#/components/headers/RetryAfter' });
  });

  it('points every error response at one ErrorBody schema {errors: string} (decisions §4)', () => {
    expect(document.components.schemas['ErrorBody']).toMatchObject({
      type: 'object',
      properties: { errors: { type: 'string' } },
      required: ['errors'],
    });
    for (const status of ['400', '401', '402', '403', '404', '413', '422', '423', '429', '500']) {
      expect(listProducts?.responses[status]?.content?.['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
    }
    expect(listProducts?.responses['402']?.description).toMatch(/frozen/);
  });

  it('declares the OAuth token calls with their signing headers and their own envelope (decisions §5.2)', () => {
    for (const action of ['create', 'refresh', 'cancel']) {
      const op = document.paths[`/admin/oauth/token/${action}`]?.['post'];
      const headers = (op?.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
      expect(headers.sort()).toEqual(['appkey', 'sign', 'timestamp']);
      expect(op?.security).toEqual([]);
      const error = op?.responses['401']?.content?.['application/json'].schema;
      expect(Object.keys(error?.properties ?? {})).toEqual(['code', 'i18nCode', 'message', 'data']);
    }
    const created = document.paths['/admin/oauth/token/create']?.['post']?.responses['200']?.content?.['application/json'].schema;
    expect(Object.keys(created?.properties ?? {})).toEqual(['code', 'i18nCode', 'message', 'data']);
    expect(Object.keys(created?.properties?.['data']?.properties ?? {})).toEqual(['accessToken', 'expireTime', 'scope']);
  });

  it('states in words what a generated client does by hand: the listings with link, the signed token calls and their envelope (issue 46)', () => {
    const description = document.info.description;
    const paged = routes.filter(({ method, path }) => document.paths[path]?.[method]?.responses['200']?.headers?.['link']);
    expect(paged.length).toBeGreaterThanOrEqual(7);
    for (const { key } of paged) expect(description).toContain(`\`${key}\``);
    expect(description).toMatch(/GET it as it stands/);
    for (const { key, method, path } of routes.filter((r) => r.path.startsWith('/admin/oauth/'))) {
      expect(description).toContain(`\`${key}\``);
      for (const p of document.paths[path]?.[method]?.parameters ?? []) expect(description).toContain(`\`${p.name}\``);
    }
    const created = document.paths['/admin/oauth/token/create']?.['post']?.responses['200']?.content?.['application/json'].schema;
    expect(description).toContain(`{${Object.keys(created?.properties ?? {}).join(', ')}}`);
  });

  it('declares Idempotency-Key on every POST of the Admin and operator APIs, with 409 and Idempotent-Replayed (docs/idempotency.md)', () => {
    const posts = routes.filter((r) => r.method === 'post' && !r.path.startsWith('/admin/oauth/'));
    expect(posts.length).toBeGreaterThan(10);
    for (const { method, path } of posts) {
      const op = document.paths[path]?.[method];
      expect(op?.parameters, path).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
      expect(op?.responses['409']?.content?.['application/json'].schema, path).toEqual({ $ref: '#/components/schemas/ErrorBody' });
      const success = Object.entries(op?.responses ?? {}).find(([status]) => status.startsWith('2'))?.[1];
      expect(success?.headers?.['Idempotent-Replayed'], path).toEqual({ $ref: '#/components/headers/IdempotentReplayed' });
    }
    for (const { method, path } of routes.filter((r) => r.method !== 'post' || r.path.startsWith('/admin/oauth/'))) {
      expect(document.paths[path]?.[method]?.parameters ?? [], path).not.toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    }
    const parameters = (
      document.components as unknown as { parameters: Record<string, { name: string; in: string; schema: { maxLength: number } }> }
    ).parameters;
    expect(parameters['IdempotencyKey']).toMatchObject({ name: 'Idempotency-Key', in: 'header', schema: { maxLength: 255 } });
  });

  it('documents the version path parameter', () => {
    expect(listProducts?.parameters).toContainEqual(expect.objectContaining({ name: 'version', in: 'path', required: true }));
  });

  it('names the server when given one', () => {
    const withServer = generateOpenApiDocument({ serverUrl: 'https://demo.myplatform.com' }) as Document;
    expect(withServer.servers).toEqual([{ url: 'https://demo.myplatform.com', description: expect.any(String) }]);
  });

  // Issue 43: what a document-driven tester found stated in prose only.
  const op = (path: string, method: string) => document.paths[path]?.[method] as unknown as Record<string, any>;
  const json = (o: Record<string, any> | undefined) => o?.['requestBody']?.content?.['application/json']?.schema;
  const param = (o: Record<string, any> | undefined, name: string) => (o?.['parameters'] as any[]).find((p) => p.name === name);

  it('marks every body a route must have as required, and no other', () => {
    const optional: string[] = [];
    for (const { method, path } of routes) {
      const o = op(path, method);
      if (o?.['requestBody'] && !o['requestBody'].required) optional.push(o['operationId']);
    }
    expect(optional).toEqual(['createFulfillmentOrder']);
    expect(op('/admin/openapi/{version}/webhooks.json', 'post')?.['requestBody']?.required).toBe(true);
  });

  it('has no nullable keyword: null is a type (JSON Schema 2020-12), also in the Admin product answer', () => {
    expect(JSON.stringify(document)).not.toContain('"nullable"');
    const product = (listProducts?.responses['200']?.content?.['application/json'].schema as any).properties.products.items;
    expect(product.properties.combined_listing.oneOf).toContainEqual({ type: 'null' });
    expect(product.properties.vendor.type).toEqual(['string', 'null']);
  });

  it('states the id of a definition read and delete as a required decimal, and the delete flag as true or false', () => {
    for (const method of ['get', 'delete']) {
      const id = param(op('/admin/openapi/{version}/metafield_definition.json', method), 'id');
      expect(id).toMatchObject({ required: true, schema: { type: 'string', pattern: expect.stringMatching(/^\^0\*/) } });
    }
    const flag = param(op('/admin/openapi/{version}/metafield_definition.json', 'delete'), 'delete_all_associated_metafields');
    expect(flag.schema.enum).toEqual(['true', 'false']);
  });

  it('states pagination parameters as the server reads them: limit 1..1000, since_id a 64-bit decimal, page_info a cursor', () => {
    expect(param(listProducts, 'limit').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
    const sinceId = new RegExp(param(listProducts, 'since_id').schema.pattern, 'u');
    expect(['0', '007', '9223372036854775807'].every((v) => sinceId.test(v))).toBe(true);
    expect(['', '-1', '9223372036854775808', '1e3'].some((v) => sinceId.test(v))).toBe(false);
    expect(param(listProducts, 'page_info').schema.pattern).toBe('^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$');
  });

  it('states enums, patterns and lengths from the domain: topic, address, owner_resource, namespace, key, type, value, access', () => {
    const webhook = json(op('/admin/openapi/{version}/webhooks.json', 'post')).properties.webhook.properties;
    expect(webhook.topic.enum).toEqual(['inventory_items/update', 'fulfillment_order/released']);
    expect(webhook.address).toMatchObject({ format: 'uri', maxLength: 2048 });
    const definition = json(op('/admin/openapi/{version}/metafield_definition.json', 'post')).properties.definition;
    expect(definition.required).toEqual(['owner_resource', 'namespace', 'key', 'name', 'type']);
    expect(definition.properties.owner_resource.enum).toContain('products');
    expect(definition.properties.type.enum).toContain('list.url');
    expect(definition.properties.key.pattern).toBe('^[A-Za-z0-9_-]{3,64}$');
    expect(definition.properties.namespace.anyOf).toHaveLength(2);
    expect(definition.properties.access.properties.admin.enum).toContain('MERCHANT_READ');
    expect(definition.properties.validations.allOf).toHaveLength(13);
    const value = json(op('/admin/openapi/{version}/products/{id}/metafields.json', 'post')).properties.metafield.properties.value;
    expect(value).toMatchObject({ minLength: 1, maxLength: 131072 });
  });

  it('excludes NUL from every request string (a body or query holding one is 400)', () => {
    const unguarded: string[] = [];
    const visit = (schema: any, where: string): void => {
      if (!schema || typeof schema !== 'object') return;
      const types = [schema.type].flat();
      if (types.includes('string') && !('pattern' in schema || 'enum' in schema || 'format' in schema || 'const' in schema))
        unguarded.push(where);
      for (const [k, v] of Object.entries(schema)) if (typeof v === 'object') visit(v, `${where}/${k}`);
    };
    for (const { method, path } of routes) {
      const o = op(path, method);
      visit(json(o), `${method} ${path} body`);
      for (const p of (o?.['parameters'] ?? []) as any[]) visit(p.schema, `${method} ${path} ${p.name}`);
    }
    expect(unguarded).toEqual([]);
    expect(document.info.description).toMatch(/NUL.*unpaired UTF-16 surrogate/s);
  });

  it('states operator store input: e-mail addresses and names without control characters (decisions §12.9)', () => {
    const store = json(op('/platform/v1/stores', 'post')).properties.store.properties;
    for (const field of ['email', 'customer_email']) expect(store[field]).toMatchObject({ format: 'email', maxLength: 254 });
    expect(new RegExp(store.name.pattern, 'u').test('Shop\nX')).toBe(false);
    expect(new RegExp(store.name.pattern, 'u').test('Café')).toBe(true);
  });

  it('declares headers as required where every answer carries them, and the call limit only where it is sent', () => {
    const headers = document.components.headers as Record<string, { required: boolean }>;
    expect(headers['TraceId']?.required).toBe(true);
    expect(listProducts?.responses['401']?.headers).not.toHaveProperty('X-Platform-Api-Call-Limit');
    expect(listProducts?.responses['200']?.headers?.['X-Platform-Api-Call-Limit']).toEqual({ $ref: '#/components/headers/CallLimit' });
    for (const status of ['404', '413']) {
      expect(listProducts?.responses[status]?.headers?.['X-Platform-Api-Call-Limit']).toEqual({
        $ref: '#/components/headers/CallLimitWhenCounted',
      });
    }
    expect(headers['CallLimitWhenCounted']?.required).toBe(false);
    const conflict = op('/admin/openapi/{version}/webhooks.json', 'post')?.['responses']['409'];
    expect(Object.keys(conflict.headers).sort()).toEqual([
      'Idempotent-Replayed',
      'Retry-After',
      'X-Platform-API-Version',
      'X-Platform-Api-Call-Limit',
      'traceId',
    ]);
  });

  it('declares link on the operator listings, 429 only on operator POSTs (the quota of kept answers), and the subscription cap', () => {
    for (const path of [
      '/platform/v1/stores/{handle}/metafield_definitions',
      '/platform/v1/stores/{handle}/metafields',
      '/platform/v1/stores/{handle}/webhooks/deliveries',
    ]) {
      expect(op(path, 'get')?.['responses']['200'].headers).toHaveProperty('link');
    }
    for (const { method, path } of routes.filter((r) => r.path.startsWith('/platform/'))) {
      expect(Object.keys(op(path, method)?.['responses'] ?? {}).includes('429'), `${method} ${path}`).toBe(method === 'post');
    }
    expect(op('/admin/openapi/{version}/webhooks.json', 'post')?.['description']).toMatch(/at most 50 subscriptions/);
  });

  it('survives JSON serialisation unchanged (it is served as /openapi.json)', () => {
    expect(JSON.parse(JSON.stringify(document))).toEqual(document);
  });
});
