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
  info: { title: string };
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

  it('survives JSON serialisation unchanged (it is served as /openapi.json)', () => {
    expect(JSON.parse(JSON.stringify(document))).toEqual(document);
  });
});
