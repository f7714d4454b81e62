import { adminContract, contract } from '@platform/contract';
import { isAppRoute, type AppRoute } from '@ts-rest/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createClient } from './client';
import { isPaginatedRoute, routeUrl, type AdminMethods } from './routes';

const client = createClient({ baseUrl: 'http://127.0.0.1:9', accessToken: 'token', apiVersion: 'v20260901', rateLimit: false });

function routesOf(router: object, prefix = ''): [string, AppRoute][] {
  return Object.entries(router).flatMap(([key, value]) =>
    isAppRoute(value) ? [[`${prefix}${key}`, value] as [string, AppRoute]] : routesOf(value as object, `${prefix}${key}.`),
  );
}

function methodAt(path: string): unknown {
  return path.split('.').reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], client.admin);
}

describe('client.admin', () => {
  const adminRoutes = routesOf(adminContract);

  it('has a method for every Admin route of the contract, bound to that route', () => {
    expect(adminRoutes.length).toBeGreaterThan(0);
    const missing = adminRoutes.filter(([path, route]) => {
      const method = methodAt(path) as (((...args: unknown[]) => unknown) & { route?: AppRoute }) | undefined;
      return typeof method !== 'function' || method.route !== route;
    });
    expect(missing.map(([path]) => path)).toEqual([]);
  });

  it('types one method per route key, and nothing else', () => {
    expectTypeOf<keyof AdminMethods>().toEqualTypeOf<keyof typeof adminContract>();
  });

  it('gives every listing iterate and page, and only listings', () => {
    for (const [path, route] of adminRoutes) {
      const method = methodAt(path) as { iterate?: unknown; page?: unknown };
      const paginated = isPaginatedRoute(route);
      expect({ path, iterate: typeof method.iterate, page: typeof method.page }).toEqual({
        path,
        iterate: paginated ? 'function' : 'undefined',
        page: paginated ? 'function' : 'undefined',
      });
    }
    expect(adminRoutes.filter(([, route]) => isPaginatedRoute(route)).map(([path]) => path)).toEqual(
      expect.arrayContaining(['listProducts', 'listMetafieldDefinitions', 'listProductMetafields']),
    );
  });

  it('leaves the operator routes out (they take the operator token, not an app token)', () => {
    const operatorKeys = routesOf(contract.operator).map(([path]) => path);
    expect(operatorKeys.length).toBeGreaterThan(0);
    for (const key of operatorKeys) expect(methodAt(key)).toBeUndefined();
  });
});

describe(routeUrl.name, () => {
  const ctx = { base: 'https://demo.myplatform.com', apiVersion: 'v20260901', send: async () => ({}) as never };

  it('fills the version and path parameters, ending a name where an identifier ends', () => {
    expect(routeUrl(ctx, adminContract.getProductMetafield, { id: '12', metafieldId: '7' })).toBe(
      'https://demo.myplatform.com/admin/openapi/v20260901/products/12/metafields/7.json',
    );
  });

  it('encodes parameter values so a crafted id cannot change the path', () => {
    expect(routeUrl(ctx, adminContract.getProductMetafield, { id: '../shop', metafieldId: '7?x=1' })).toBe(
      'https://demo.myplatform.com/admin/openapi/v20260901/products/..%2Fshop/metafields/7%3Fx%3D1.json',
    );
  });

  it('refuses a missing path parameter rather than calling another path', () => {
    expect(() => routeUrl(ctx, adminContract.getProductMetafield, { id: '12' })).toThrow(/'metafieldId' is required/);
  });

  it('writes the query: numbers as text, arrays joined by commas, undefined and null left out', () => {
    expect(routeUrl(ctx, adminContract.listProducts, {}, { limit: 5, fields: ['id', 'title'], since_id: undefined, page_info: null })).toBe(
      'https://demo.myplatform.com/admin/openapi/v20260901/products/products.json?limit=5&fields=id%2Ctitle',
    );
  });
});

describe(isPaginatedRoute.name, () => {
  it('sees page_info through a refined or optional query schema', async () => {
    const { z } = await import('zod');
    const query = z.object({ page_info: z.string().optional() });
    const route = (q: unknown) => ({ method: 'GET', path: '/x', query: q, responses: {} }) as unknown as AppRoute;
    expect(isPaginatedRoute(route(query.refine(() => true)))).toBe(true);
    expect(isPaginatedRoute(route(query.optional()))).toBe(true);
    expect(isPaginatedRoute(route(z.object({ id: z.string() })))).toBe(false);
    expect(isPaginatedRoute(route(undefined))).toBe(false);
  });
});
