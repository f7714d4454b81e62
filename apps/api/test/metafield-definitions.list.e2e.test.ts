import { parseLinkHeader } from '@platform/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, storeWithApp, VERSION, type Answer, type TestPlatform } from './harness';
import {
  aDefinition,
  definitionsOf,
  METAFIELD_SCOPES,
  startDefinitionsPlatform,
  storeWithTwoApps,
  type AppHandle,
} from './metafield-definitions.fixtures';

// GET /metafield_definitions.json (decisions §8.6), paginated like every listing (spec Pagination, decisions §6).

let t: TestPlatform;
let a: AppHandle;
let b: AppHandle;
let storeId: string;
/** a's definitions, ascending id: 120 in products/custom, 30 in orders/custom, 30 in products/extra. */
let ids: { all: string[]; productsCustom: string[]; orders: string[] };

const url = (query = '') => `${t.origin}/admin/openapi/${VERSION}/metafield_definitions.json${query}`;
const idsOf = (r: Answer) => (r.body.metafield_definitions as { id: string }[]).map((d) => d.id);

beforeAll(async () => {
  t = await startDefinitionsPlatform();
  const s = await storeWithTwoApps(t, 'listing');
  ({ a, b } = s);
  storeId = s.store.id;
  const all: string[] = [];
  const productsCustom: string[] = [];
  const orders: string[] = [];
  for (let i = 0; i < 180; i++) {
    const owner_resource = i % 6 === 1 ? 'orders' : 'products';
    const namespace = i % 6 === 2 ? 'extra' : 'custom';
    const r = await a.defs.create(aDefinition({ owner_resource, namespace, key: `key_${i}` }));
    all.push(r.body.definition.id);
    if (owner_resource === 'orders') orders.push(r.body.definition.id);
    else if (namespace === 'custom') productsCustom.push(r.body.definition.id);
  }
  ids = { all, productsCustom, orders };
});
afterAll(() => t.close());

async function walk(first: string, token: string): Promise<{ pages: string[][]; last: Answer }> {
  const pages: string[][] = [];
  let next: string | undefined = first;
  let last!: Answer;
  while (next) {
    last = await call(next, { token });
    expect(last.status, last.text).toBe(200);
    pages.push(idsOf(last));
    next = parseLinkHeader(last.headers.get('link')).next;
  }
  return { pages, last };
}

describe('listing and pagination (decisions §6, §8.6)', () => {
  it('defaults to 50 definitions in ascending id order, with a next link only', async () => {
    const r = await a.defs.list();
    expect(r.status).toBe(200);
    expect(idsOf(r)).toEqual(ids.all.slice(0, 50));
    const link = parseLinkHeader(r.headers.get('link'));
    expect(link.previous).toBeUndefined();
    expect(link.next?.startsWith(url('?'))).toBe(true);
  });

  it('visits every definition once following next, then previous back to the start', async () => {
    const { pages, last } = await walk(url('?limit=40'), a.token);
    expect(pages.map((p) => p.length)).toEqual([40, 40, 40, 40, 20]);
    expect(pages.flat()).toEqual(ids.all);
    const lastLink = parseLinkHeader(last.headers.get('link'));
    expect(lastLink.next).toBeUndefined();
    let previous = lastLink.previous;
    const back: string[][] = [];
    while (previous) {
      const r = await call(previous, { token: a.token });
      back.unshift(idsOf(r));
      previous = parseLinkHeader(r.headers.get('link')).previous;
    }
    expect(back).toEqual(pages.slice(0, -1));
  });

  it('sends no link header when everything fits on one page', async () => {
    const r = await a.defs.list(`?since_id=${ids.all[177]}`);
    expect(idsOf(r)).toEqual(ids.all.slice(178));
    expect(r.headers.get('link')).toBeNull();
  });

  it('filters by owner_resource and namespace, and the cursor carries the filters to later pages', async () => {
    const { pages } = await walk(url('?owner_resource=products&namespace=custom&limit=25'), a.token);
    expect(pages.flat()).toEqual(ids.productsCustom);
    const orders = await a.defs.list('?owner_resource=orders&limit=10');
    expect(idsOf(orders)).toEqual(ids.orders.slice(0, 10));
    // With page_info every filter except limit and fields is ignored (decisions §6.2).
    const next = new URL(parseLinkHeader(orders.headers.get('link')).next!);
    expect([...next.searchParams.keys()].sort()).toEqual(['limit', 'page_info']);
    next.searchParams.set('owner_resource', 'products');
    next.searchParams.set('since_id', '0');
    next.searchParams.set('limit', '30');
    const page2 = await call(next.toString(), { token: a.token });
    expect(idsOf(page2)).toEqual(ids.orders.slice(10, 30));
  });

  it('returns only the requested fields, always with id, ignoring unknown names; links keep fields', async () => {
    const r = await a.defs.list('?limit=2&fields=key,validations,nonsense');
    for (const d of r.body.metafield_definitions) expect(Object.keys(d).sort()).toEqual(['id', 'key', 'validations']);
    const next = new URL(parseLinkHeader(r.headers.get('link')).next!);
    expect(next.searchParams.get('fields')).toBe('key,validations,nonsense');
    const page2 = await call(next.toString(), { token: a.token });
    expect(Object.keys(page2.body.metafield_definitions[0]).sort()).toEqual(['id', 'key', 'validations']);
  });

  it('answers the same objects as get', async () => {
    const r = await a.defs.list('?limit=1');
    expect(r.body.metafield_definitions[0]).toEqual((await a.defs.get(ids.all[0]!)).body.definition);
  });

  it.each(['0', '1001', 'abc', '', '-1', '2.5'])('400s limit=%s', async (limit) => {
    const r = await a.defs.list(`?limit=${limit}`);
    expect(r.status).toBe(400);
    expect(r.body.errors).toMatch(/^limit: /);
  });

  it('accepts limit=1000', async () => {
    expect(idsOf(await a.defs.list('?limit=1000'))).toEqual(ids.all);
  });

  it.each([
    ['since_id=abc', /^since_id: /],
    ['owner_resource=pages', /^owner_resource: is not included in the list/],
    ['owner_resource=', /^owner_resource: /],
    ['namespace=', /^namespace: /],
    // A repeated parameter, in the service's words (decisions §4), not zod's "expected string, received array".
    ['limit=1&limit=2', /^limit: must be given once$/],
    ['namespace=a&namespace=b', /^namespace: must be given once$/],
  ])('400s %s', async (query, message) => {
    const r = await a.defs.list(`?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.errors).toMatch(message);
  });

  it("400s a tampered page_info, another store's, another app listing's and another resource's", async () => {
    const next = new URL(parseLinkHeader((await a.defs.list('?limit=2')).headers.get('link')).next!);
    const cursor = next.searchParams.get('page_info')!;
    const flipped = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
    const other = await storeWithApp(t, 'listing-other', [...METAFIELD_SCOPES, 'read_products']);
    const otherDefs = definitionsOf(other.admin);
    for (let i = 0; i < 3; i++) await otherDefs.create(aDefinition());
    const foreign = new URL(parseLinkHeader((await otherDefs.list('?limit=1')).headers.get('link')).next!).searchParams.get('page_info')!;
    await call(`${t.origin}/platform/v1/stores/listing-other/products`, {
      token: 'test-operator-token-0123456789',
      body: { products: [{ title: 'a' }, { title: 'b' }] },
    });
    const products = await other.admin('/products/products.json?limit=1');
    const productCursor = new URL(parseLinkHeader(products.headers.get('link')).next!).searchParams.get('page_info')!;
    const merchantCursor = new URL(
      parseLinkHeader(
        (
          await call(`${t.origin}/platform/v1/stores/listing/metafield_definitions?limit=1`, { token: 'test-operator-token-0123456789' })
        ).headers.get('link'),
      ).next!,
    ).searchParams.get('page_info')!;
    for (const bad of [flipped, 'garbage', `${cursor}x`, '', foreign, merchantCursor]) {
      const r = await a.defs.list(`?page_info=${encodeURIComponent(bad)}`);
      expect(r.status, bad.slice(0, 12)).toBe(400);
      expect(r.body.errors).toMatch(/page_info/);
    }
    const r = await other.admin(`/metafield_definitions.json?page_info=${productCursor}`);
    expect(r.status).toBe(400);
  });
});

describe('only what the caller may see (decisions §8.7)', () => {
  it("pages another app's listing over a's hidden definitions, filling each page with visible ones", async () => {
    // a's 180 definitions have no access set: NONE, so b sees them. Hidden ones in between:
    await t.db.prisma.metafieldDefinition.createMany({
      data: Array.from({ length: 450 }, (_, i) => ({
        updatedAt: new Date(),
        storeId: BigInt(storeId),
        appId: BigInt(a.appId),
        ownerResource: 'products',
        namespace: 'hidden',
        key: `hidden_${i}`,
        name: 'Hidden',
        type: 'boolean',
        accessAdmin: i % 2 === 0 ? 'PRIVATE' : 'MERCHANT_READ',
      })),
    });
    const visible = await b.defs.create(aDefinition({ key: 'after_the_hidden' }));
    const { pages } = await walk(url('?limit=60'), b.token);
    expect(pages.map((p) => p.length)).toEqual([60, 60, 60, 1]);
    expect(pages.flat()).toEqual([...ids.all, visible.body.definition.id]);
    const mine = await a.defs.list('?limit=1000');
    expect(idsOf(mine)).toHaveLength(180 + 450 + 1);
  });
});

describe('response size (decisions §3.4)', () => {
  it('shrinks a page below 8 MB and still yields every definition through next', async () => {
    const s = await storeWithApp(t, 'listing-big', METAFIELD_SCOPES);
    const big = JSON.stringify(['x'.repeat(299_990)]);
    const defs = definitionsOf(s.admin);
    const created: string[] = [];
    for (let i = 0; i < 30; i++) {
      const r = await defs.create(aDefinition({ validations: [{ name: 'choices', value: big }] }));
      created.push(r.body.definition.id);
    }
    const seen: string[] = [];
    let next: string | undefined = url('?limit=250');
    let pages = 0;
    while (next) {
      const r: Answer = await call(next, { token: s.token });
      expect(r.status).toBe(200);
      expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(8 * 1024 * 1024);
      seen.push(...idsOf(r));
      next = parseLinkHeader(r.headers.get('link')).next;
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(created);
  });

  it('400s a single definition over 8 MB, asking for fields', async () => {
    const s = await storeWithApp(t, 'listing-huge', METAFIELD_SCOPES);
    const row = await t.db.prisma.metafieldDefinition.create({
      data: {
        updatedAt: new Date(),
        storeId: BigInt(s.store.id),
        appId: BigInt(s.app.app.id),
        ownerResource: 'products',
        namespace: 'custom',
        key: 'huge',
        name: 'Huge',
        description: 'd'.repeat(8 * 1024 * 1024 + 1),
        type: 'single_line_text_field',
      },
    });
    const r = await s.admin('/metafield_definitions.json');
    expect(r.status).toBe(400);
    expect(r.body.errors).toMatch(/fields/);
    const slim = await s.admin('/metafield_definitions.json?fields=key');
    expect(slim.body.metafield_definitions).toEqual([{ id: row.id.toString(), key: 'huge' }]);
  });
});
