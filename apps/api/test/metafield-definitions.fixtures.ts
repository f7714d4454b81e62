import type { MetafieldRecheck } from '@platform/db';
import { afterAll, beforeAll } from 'vitest';
import { call, operator, startPlatform, storeWithApp, VERSION, type Answer, type TestPlatform } from './harness';

// Helpers shared by the metafield-definitions*.e2e.test.ts files (not a test file itself).

export const METAFIELD_SCOPES = ['read_metafields', 'write_metafields'];

/**
 * A platform for these suites: plenty of room in the leaky bucket (they make many calls per app;
 * decisions §7 has its own tests), and the values feature's background re-check paused, so the
 * re-check rows a definition change writes can be inspected as written (decisions §8.12).
 */
export function startDefinitionsPlatform(): Promise<TestPlatform> {
  return startPlatform({ PLATFORM_RATE_LIMIT_CAPACITY: '100000', PLATFORM_METAFIELD_RECHECK_INTERVAL_MS: '0' });
}

export type Admin = (path: string, init?: Parameters<typeof call>[1]) => Promise<Answer>;

/** The five definition routes of one app's token. */
export function definitionsOf(admin: Admin) {
  return {
    create: (definition: Record<string, unknown>) => admin('/metafield_definition.json', { method: 'POST', body: { definition } }),
    get: (id: string) => admin(`/metafield_definition.json?id=${encodeURIComponent(id)}`),
    update: (definition: Record<string, unknown>) => admin('/metafield_definition.json', { method: 'PUT', body: { definition } }),
    remove: (id: string, query = '') => admin(`/metafield_definition.json?id=${encodeURIComponent(id)}${query}`, { method: 'DELETE' }),
    list: (query = '') => admin(`/metafield_definitions.json${query}`),
  };
}
export type Definitions = ReturnType<typeof definitionsOf>;

/** startDefinitionsPlatform with a store `handle` whose app has METAFIELD_SCOPES, and that app's definition routes. */
export async function startDefinitionsStore(handle: string) {
  const t = await startDefinitionsPlatform();
  const shop = await storeWithApp(t, handle, METAFIELD_SCOPES);
  return { t, shop, defs: definitionsOf(shop.admin) };
}

let counter = 0;

/** A valid definition body with a fresh key. */
export function aDefinition(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    owner_resource: 'products',
    namespace: 'custom',
    key: `field_${counter}`,
    name: `Field ${counter}`,
    type: 'single_line_text_field',
    ...overrides,
  };
}

export interface AppHandle {
  appId: string;
  token: string;
  admin: Admin;
  defs: Definitions;
}

/** A store with two private apps (the access table's creating app and "other apps"). */
export async function storeWithTwoApps(t: TestPlatform, handle: string, scopes: string[] = METAFIELD_SCOPES) {
  const first = await storeWithApp(t, handle, scopes);
  const second = await operator(t).createPrivateApp(handle, scopes);
  const adminOf =
    (token: string): Admin =>
    (path, init = {}) =>
      call(`${t.origin}/admin/openapi/${VERSION}${path}`, { token, ...init });
  const a: AppHandle = { appId: first.app.app.id, token: first.token, admin: first.admin, defs: definitionsOf(first.admin) };
  const b: AppHandle = {
    appId: second.app.id,
    token: second.access_token,
    admin: adminOf(second.access_token),
    defs: definitionsOf(adminOf(second.access_token)),
  };
  return { store: first.store, a, b };
}

/** The merchant admin's view through the operator API (decisions §10). */
export async function merchantView(t: TestPlatform, handle: string, query = ''): Promise<Answer> {
  return operator(t).call(`/stores/${handle}/metafield_definitions${query}`);
}

export async function createMetaobjectDefinition(t: TestPlatform, handle: string, type: string): Promise<string> {
  const r = await operator(t).call(`/stores/${handle}/metaobject_definitions`, {
    body: { metaobject_definition: { type, name: `Type ${type}` } },
  });
  if (r.status !== 201) throw new Error(`metaobject definition ${r.status} ${r.text}`);
  return r.body.metaobject_definition.id as string;
}

/** A value row written straight to the database (the values API is another feature). */
export async function insertValue(
  t: TestPlatform,
  storeId: string,
  fields: {
    namespace: string;
    key: string;
    ownerId?: number;
    definitionId?: string | null;
    value?: string;
    type?: string;
    valid?: boolean;
  },
) {
  return t.db.prisma.metafield.create({
    data: {
      updatedAt: new Date(),
      storeId: BigInt(storeId),
      ownerResource: 'products',
      ownerId: BigInt(fields.ownerId ?? 1),
      namespace: fields.namespace,
      key: fields.key,
      type: fields.type ?? 'single_line_text_field',
      value: fields.value ?? 'hello',
      definitionId: fields.definitionId ? BigInt(fields.definitionId) : null,
      valid: fields.valid ?? true,
      invalidReasons: fields.valid === false ? '["value: is too long (rule max)"]' : '[]',
    },
  });
}

export function rechecksOf(t: TestPlatform, definitionId: string): Promise<MetafieldRecheck[]> {
  return t.db.prisma.metafieldRecheck.findMany({ where: { definitionId: BigInt(definitionId) }, orderBy: { id: 'asc' } });
}

/**
 * The rules files' platform: made before the file's tests, closed after; a store `rules` with an
 * app of the metafield scopes, and a metaobject definition of it. Read its fields inside tests.
 */
export function rulesPlatform(): { readonly t: TestPlatform; readonly defs: Definitions; readonly metaobjectDefinitionId: string } {
  let made: { t: TestPlatform; defs: Definitions; metaobjectDefinitionId: string } | undefined;
  beforeAll(async () => {
    const { t, defs } = await startDefinitionsStore('rules');
    made = { t, defs, metaobjectDefinitionId: await createMetaobjectDefinition(t, 'rules', 'designer') };
  });
  afterAll(() => made?.t.close());
  return {
    get t() {
      return made!.t;
    },
    get defs() {
      return made!.defs;
    },
    get metaobjectDefinitionId() {
      return made!.metaobjectDefinitionId;
    },
  };
}
