import { supportedVersions } from '@platform/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListingDocumentsWorker } from '../src/products/listing-documents.worker';
import { call, listen, OPERATOR_TOKEN, operator, startPlatform, storeWithApp, testConfig, type TestPlatform } from './harness';

/*
 * Issue 17: the listing sends the product documents stored at write time as bytes (listing_doc,
 * in the store's zone), and parses only for `fields`. These tests hold the fast path to the slow
 * one: what the listing sends from stored bytes is byte for byte what it renders from the
 * documents when no stored bytes can be used (rows of another zone, or written before the column).
 */

let t: TestPlatform;
let token: string;
const op = () => operator(t);

const PRODUCTS = [
  { title: 'Plain' },
  { title: 'Ünïcødé ✓ 🚀 "quoted" <b>bold</b> \\ back', body_html: '<p>Line\nbreak</p>', tags: ['a', 'b'], vendor: null },
  {
    title: 'Full',
    handle: 'full-one',
    status: 'archived',
    published_at: '2026-01-02T03:04:05Z',
    images: [{ src: 'https://cdn.example.com/1.png', alt: 'one' }],
    media: [
      { src: 'https://cdn.example.com/m.png', caption: 'cap' },
      { src: 'https://cdn.example.com/v.mp4', content_type: 'VIDEO', preview_image: { src: 'https://cdn.example.com/poster.png' } },
    ],
    options: [{ name: 'Size', values: ['S', 'M'] }],
    variants: [
      { sku: 'F-S', price: '1.50', option1: 'S', weight: '2.5', weight_unit: 'g' },
      { sku: 'F-M', price: '2.50', option1: 'M', inventory_quantity: 7 },
    ],
  },
];

/** The page cache's answers so far (listing_cache_requests_total{result}). */
async function cacheCount(target: TestPlatform, result: 'hit' | 'miss'): Promise<number> {
  const text = (await call(`${target.origin}/metrics`, { token: OPERATOR_TOKEN })).text;
  return Number(new RegExp(`^listing_cache_requests_total\\{result="${result}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
}

const listing = (version: string, query = '') => `${t.origin}/admin/openapi/${version}/products/products.json${query}`;
const FIELD_SELECTIONS = [
  '',
  'title',
  'id,updated_at',
  'variants,images,options',
  'nope',
  'title,created_at,published_at,handle,status',
  'body_html,tags',
];

/** Every answer of the listing (all supported versions, every fields selection), as text. */
async function allAnswers(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const versions = supportedVersions(new Date(Date.parse((await op().call('/clock')).body.now)));
  for (const version of versions) {
    for (const fields of FIELD_SELECTIONS) {
      const r = await call(listing(version, fields ? `?fields=${fields}` : ''), { token });
      expect(r.status).toBe(200);
      out.set(`${version} ${fields}`, r.text);
    }
  }
  return out;
}

/** Makes every stored listing document unusable, as for rows written before the column existed. */
async function forgetListingDocuments(): Promise<void> {
  await t.db.prisma.product.updateMany({ data: { listingDoc: null, listingZone: null } });
}

beforeAll(async () => {
  t = await startPlatform({ PLATFORM_RATE_LIMIT_CAPACITY: '100000' });
  ({ token } = await storeWithApp(t, 'docs', ['read_products']));
  const bulk = await op().call('/stores/docs/products', { body: { products: PRODUCTS } });
  expect(bulk.status).toBe(201);
});
afterAll(() => t?.close());

describe('stored listing documents (issue 17)', () => {
  it('are written with every product, and the create answer is what the listing then sends', async () => {
    const rows = await t.db.prisma.product.findMany({ orderBy: { id: 'asc' }, select: { listingDoc: true, listingZone: true } });
    expect(rows.every((r) => r.listingDoc !== null && r.listingZone === 'UTC')).toBe(true);
    const created = await op().call('/stores/docs/products', { body: { product: { title: 'Echoed' } } });
    const listed = await call(listing('v20260901'), { token });
    const last = listed.body.products.at(-1);
    expect(last).toEqual(created.body.product);
  });

  it('send byte for byte what rendering on read sends, in every version and for every fields selection', async () => {
    const fast = await allAnswers();
    expect(fast.size).toBeGreaterThanOrEqual(FIELD_SELECTIONS.length * 8);
    await forgetListingDocuments();
    const slow = await allAnswers();
    expect(slow).toEqual(fast);
    // Rendered again in the background (as at an upgrade), and still the same.
    await t.platform.app.get(ListingDocumentsWorker).refresh();
    expect(await t.db.prisma.product.count({ where: { listingZone: null } })).toBe(0);
    expect(await allAnswers()).toEqual(fast);
  });

  it('take ids reserved in bulk: three imports at once land whole, each answered with its own products', async () => {
    const batches = [0, 1, 2].map((b) =>
      Array.from({ length: 120 }, (_, i) => ({ title: `Batch ${b} #${i}`, variants: [{ sku: `B${b}-${i}` }, { sku: `B${b}-${i}-2` }] })),
    );
    const answers = await Promise.all(batches.map((products) => op().call('/stores/docs/products', { body: { products } })));
    const ids = answers.flatMap((r, b) => {
      expect(r.status).toBe(201);
      expect(r.body.products.map((p: { title: string }) => p.title)).toEqual(batches[b]!.map((p) => p.title));
      return r.body.products.map((p: { id: string }) => p.id);
    });
    expect(new Set(ids).size).toBe(360);
    const variantIds = answers.flatMap((r) =>
      r.body.products.flatMap((p: { variants: { id: string; inventory_item_id: string }[] }) => p.variants.map((v) => v.inventory_item_id)),
    );
    expect(new Set(variantIds).size).toBe(720);
    const listed = await call(listing('v20260901', `?limit=1000&since_id=${BigInt(ids.sort((a, b) => Number(a) - Number(b))[0]!) - 1n}`), {
      token,
    });
    expect(listed.body.products.filter((p: { title: string }) => p.title.startsWith('Batch ')).length).toBe(360);
  });

  it('follow a PATCH of the product', async () => {
    const first = (await call(listing('v20260901', '?limit=1'), { token })).body.products[0];
    const r = await op().call(`/stores/docs/products/${first.id}`, { method: 'PATCH', body: { product: { title: 'Renamed' } } });
    expect(r.status).toBe(200);
    const again = (await call(listing('v20260901', '?limit=1'), { token })).body.products[0];
    expect(again).toEqual(r.body.product);
    expect(again.title).toBe('Renamed');
  });

  it("keep a media's preview image as given (a video's poster), else its own src, also through a PATCH", async () => {
    const full = (await call(listing('v20260901', '?limit=10'), { token })).body.products.find(
      (p: { title: string }) => p.title === 'Full',
    );
    expect(full.media.map((m: { content_type: string; preview_image: unknown }) => [m.content_type, m.preview_image])).toEqual([
      ['IMAGE', { src: 'https://cdn.example.com/m.png' }],
      ['VIDEO', { src: 'https://cdn.example.com/poster.png' }],
    ]);
    const r = await op().call(`/stores/docs/products/${full.id}`, { method: 'PATCH', body: { product: { vendor: 'Patched' } } });
    expect(r.status).toBe(200);
    expect(r.body.product.media).toEqual(full.media);
  });

  it("follow a change of the store's time zone: the new zone at once, stored again in the background", async () => {
    const before = (await call(listing('v20260901'), { token })).body.products;
    expect(before[0].created_at).toMatch(/Z$|\+00:00$/);
    expect((await op().call('/stores/docs', { method: 'PATCH', body: { store: { iana_timezone: 'Asia/Shanghai' } } })).status).toBe(200);
    const after = await call(listing('v20260901'), { token });
    for (const p of after.body.products) expect(p.created_at).toMatch(/\+08:00$/);
    await t.platform.app.get(ListingDocumentsWorker).refresh();
    expect(await t.db.prisma.product.count({ where: { NOT: { listingZone: 'Asia/Shanghai' } } })).toBe(0);
    expect((await call(listing('v20260901'), { token })).text).toBe(after.text);
  });

  it('are rendered by a replica that starts on a database written before they existed', async () => {
    const expected = (await call(listing('v20260901'), { token })).text;
    await forgetListingDocuments();
    const replica = await listen(testConfig(t.platform.config.databaseUrl));
    try {
      await replica.platform.app.get(ListingDocumentsWorker).refresh();
      expect(await t.db.prisma.product.count({ where: { listingZone: null } })).toBe(0);
      expect((await call(`${replica.origin}/admin/openapi/v20260901/products/products.json`, { token })).text).toBe(expected);
    } finally {
      await replica.close();
    }
  });
});

describe('answered pages kept in memory (issue 17, docs/performance.md)', () => {
  it('never serve a page older than a write, on this replica or another one on the same database', async () => {
    const replica = await listen(testConfig(t.platform.config.databaseUrl));
    try {
      const on = (target: TestPlatform) => call(`${target.origin}/admin/openapi/v20260901/products/products.json?limit=5`, { token });
      const first = await on(replica);
      expect((await on(replica)).text).toBe(first.text);
      const id = first.body.products[0].id;
      // Written through the other replica: the next read of the cached one shows it.
      expect(
        (await op().call(`/stores/docs/products/${id}`, { method: 'PATCH', body: { product: { title: 'Seen at once' } } })).status,
      ).toBe(200);
      expect((await on(replica)).body.products[0].title).toBe('Seen at once');
      expect((await op().call('/stores/docs', { method: 'PATCH', body: { store: { iana_timezone: 'America/New_York' } } })).status).toBe(
        200,
      );
      expect((await on(replica)).body.products[0].updated_at).toMatch(/-0[45]:00$/);
      await op().call('/stores/docs/products', { body: { product: { title: 'Newest' } } });
      const all = await call(`${replica.origin}/admin/openapi/v20260901/products/products.json?limit=1000`, { token });
      expect(all.body.products.at(-1).title).toBe('Newest');
    } finally {
      await replica.close();
    }
  });

  it('build the links of a page kept in memory for the host it is asked on', async () => {
    const path = '/admin/openapi/v20260901/products/products.json?limit=2';
    const bare = await call(`${t.origin}${path}`, { token });
    // Kept from its second ask on (issue 48), and answered from memory on the third.
    expect((await call(`${t.origin}${path}`, { token })).text).toBe(bare.text);
    const hits = await cacheCount(t, 'hit');
    const onStore = await call(`${t.origin}${path}`, { token, headers: { host: `docs.localhost:${t.port}` } });
    expect(await cacheCount(t, 'hit')).toBe(hits + 1);
    expect(bare.headers.get('link')).toContain(`<${t.origin}/admin/openapi/v20260901/products/products.json?limit=2&page_info=`);
    expect(onStore.headers.get('link')).toContain(
      `<http://docs.localhost:${t.port}/admin/openapi/v20260901/products/products.json?limit=2&page_info=`,
    );
    expect(onStore.text).toBe(bare.text);
  });

  it('keep a page asked for twice, and none of the pages a walk asks for once (issue 48)', async () => {
    const path = '/admin/openapi/v20260901/products/products.json?limit=1&fields=title';
    const ask = (url: string) => call(url, { token });
    const before = { hit: await cacheCount(t, 'hit'), miss: await cacheCount(t, 'miss') };
    // A walk page by page: every page asked once, none answered from memory.
    let url: string | undefined = `${t.origin}${path}`;
    let pages = 0;
    while (url) {
      const page = await ask(url);
      pages++;
      url = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
    }
    expect(pages).toBeGreaterThan(2);
    expect(await cacheCount(t, 'miss')).toBe(before.miss + pages);
    // The same walk again: each page is asked a second time and kept, a third walk is all hits.
    for (let walk = 0; walk < 2; walk++) {
      url = `${t.origin}${path}`;
      while (url) url = /<([^>]+)>; rel="next"/.exec((await ask(url)).headers.get('link') ?? '')?.[1];
    }
    expect(await cacheCount(t, 'hit')).toBe(before.hit + pages);
    expect(await cacheCount(t, 'miss')).toBe(before.miss + 2 * pages);
  });

  it('answer the same with the memory turned off', async () => {
    const expected = (await call(listing('v20260901', '?limit=20&fields=title,variants'), { token })).text;
    const uncached = await listen(testConfig(t.platform.config.databaseUrl, { PLATFORM_LISTING_CACHE_MB: '0' }));
    try {
      expect(
        (await call(`${uncached.origin}/admin/openapi/v20260901/products/products.json?limit=20&fields=title,variants`, { token })).text,
      ).toBe(expected);
    } finally {
      await uncached.close();
    }
  });
});
