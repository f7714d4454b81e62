import { MetafieldRecheckWorker } from '../src/metafields/recheck.worker';
import { call, freshDatabase, listen, operator, storeWithApp, testConfig, type Answer, type TestPlatform } from './harness';

// Helpers of the metafields*.e2e.test.ts files (not a test file itself).

/** Values on products need both sides (decisions §5.5). */
export const VALUE_SCOPES = ['read_products', 'write_products', 'read_metafields', 'write_metafields'];

/** The fields of a value in the Admin API's answers (spec "Metafield"), sorted. */
export const VALUE_FIELDS = [
  'admin_graphql_api_id',
  'created_at',
  'description',
  'id',
  'key',
  'namespace',
  'owner_id',
  'owner_resource',
  'type',
  'updated_at',
  'value',
];

/** Plenty of room in the leaky bucket: these suites make many calls per app (decisions §7 has its own tests). */
export const PLATFORM_ENV = { PLATFORM_RATE_LIMIT_CAPACITY: '100000' };

export type Admin = (path: string, init?: Parameters<typeof call>[1]) => Promise<Answer>;

export function adminAt(t: TestPlatform, token: string, version: string): Admin {
  return (path, init = {}) => call(`${t.origin}/admin/openapi/${version}${path}`, { token, ...init });
}

/** The value routes and the definition routes of one app's token. */
export function apiOf(admin: Admin) {
  return {
    admin,
    create: (productId: string, metafield: Record<string, unknown>) =>
      admin(`/products/${productId}/metafields.json`, { method: 'POST', body: { metafield } }),
    list: (productId: string, query = '') => admin(`/products/${productId}/metafields.json${query}`),
    get: (productId: string, id: string) => admin(`/products/${productId}/metafields/${id}.json`),
    update: (productId: string, id: string, metafield: Record<string, unknown>) =>
      admin(`/products/${productId}/metafields/${id}.json`, { method: 'PUT', body: { metafield } }),
    remove: (productId: string, id: string) => admin(`/products/${productId}/metafields/${id}.json`, { method: 'DELETE' }),
    set: (metafields: unknown) => admin('/metafields_set.json', { method: 'POST', body: { metafields } }),
    /** The bulk set with a body written by hand (JSON numbers as typed, duplicate keys). */
    setRaw: (body: string) =>
      admin('/metafields_set.json', { method: 'POST', rawBody: body, headers: { 'content-type': 'application/json; charset=utf-8' } }),
    /** Creates a definition through the Admin API (201 expected). */
    async define(definition: Record<string, unknown>) {
      const r = await admin('/metafield_definition.json', {
        method: 'POST',
        body: { definition: { owner_resource: 'products', name: `Field ${String(definition.key)}`, ...definition } },
      });
      if (r.status !== 201) throw new Error(`define ${r.status} ${r.text}`);
      return r.body.definition as { id: string; namespace: string; key: string; type: string };
    },
    /** Changes a definition's validations (or other fields) through the Admin API (200 expected). */
    async redefine(definition: Record<string, unknown>) {
      const r = await admin('/metafield_definition.json', {
        method: 'PUT',
        body: { definition: { owner_resource: 'products', ...definition } },
      });
      if (r.status !== 200) throw new Error(`redefine ${r.status} ${r.text}`);
      return r.body.definition as { id: string };
    },
  };
}
export type Api = ReturnType<typeof apiOf>;

/** A store, one app with the value scopes (and `extraScopes`), and `products` products. */
export async function storeWithProducts(t: TestPlatform, handle: string, products = 2, scopes = VALUE_SCOPES) {
  const made = await storeWithApp(t, handle, scopes);
  const productIds = await operator(t).createProducts(
    handle,
    Array.from({ length: products }, (_, i) => ({ title: `Product ${i + 1}` })),
  );
  return { ...made, appId: made.app.app.id, productIds, api: apiOf(made.admin) };
}

/** A second app on the same store (the access table's "other apps"). */
export async function secondApp(t: TestPlatform, handle: string, version: string, scopes = VALUE_SCOPES) {
  const app = await operator(t).createPrivateApp(handle, scopes);
  return { appId: app.app.id, token: app.access_token, api: apiOf(adminAt(t, app.access_token, version)) };
}

/** A metaobject definition and `handles` metaobjects of it, through the operator API (decisions §8.14). */
export async function metaobjects(t: TestPlatform, handle: string, type: string, handles: string[]) {
  const op = operator(t);
  const d = await op.call(`/stores/${handle}/metaobject_definitions`, { body: { metaobject_definition: { type, name: `Type ${type}` } } });
  if (d.status !== 201) throw new Error(`metaobject definition ${d.status} ${d.text}`);
  const definitionId = d.body.metaobject_definition.id as string;
  const gids: string[] = [];
  for (const h of handles) {
    const m = await op.call(`/stores/${handle}/metaobject_definitions/${definitionId}/metaobjects`, {
      body: { metaobject: { handle: h } },
    });
    if (m.status !== 201) throw new Error(`metaobject ${m.status} ${m.text}`);
    gids.push(m.body.metaobject.admin_graphql_api_id as string);
  }
  return { definitionId, gids };
}

/** The operator's view of a store's values (decisions §10, §8.12). */
export function storeValues(t: TestPlatform, handle: string, query = ''): Promise<Answer> {
  return operator(t).call(`/stores/${handle}/metafields${query}`);
}

/** Polls until `check` returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if (result !== undefined) return result;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function workerOf(t: TestPlatform): MetafieldRecheckWorker {
  return t.platform.app.get(MetafieldRecheckWorker);
}

/**
 * A SQLite file that outlives one platform, for restart tests: `start` boots a platform on it (as
 * harness.startPlatform does), `close` of that platform keeps the file; `drop` removes it.
 */
export async function persistentDatabase() {
  const { url, drop } = await freshDatabase();
  return {
    url,
    start: (env: Record<string, string> = {}): Promise<TestPlatform> => listen(testConfig(url, { ...PLATFORM_ENV, ...env })),
    drop,
  };
}
