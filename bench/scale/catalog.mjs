// bench/scale, products (issue 48 §1): one database that grows, the heavy products of
// bench/lib/products.mjs seeded by bench/lib/stores.mjs (a template imported through the operator
// API, copied in SQL with its listing documents): first one store of each size in
// BENCH_SCALE_PRODUCTS, then BENCH_SCALE_STORES (e.g. 1000x1000: 1,000 stores of 1,000 products).
// After each step, through the Admin API, one request at a time:
//   - listing: pages of 250 (`products.json?limit=250&since_id=...`), each at a since_id drawn at
//     random without repeats across the store (or a random store of the many), so no two requests
//     ask the same page and the page cache cannot answer;
//   - a value write: metafields_set of one value of a defined metafield, each on another product
//     (of another store, for the many);
//   - a re-check: the rules of a definition with 1,000 values changed (max 500, then back to 1,000),
//     timed from the request until its job is done (read in the database; the API's idle poll for
//     jobs set to 10 ms instead of 250 so the wait is the job's).
import { request } from 'undici';
import { openSql, startApi, VERSION } from '../lib/harness.mjs';
import { seedStores } from '../lib/stores.mjs';
import { summary } from './stats.mjs';

const PAGES = Number(process.env.BENCH_SCALE_PAGES ?? 100);
const WRITES = Number(process.env.BENCH_SCALE_WRITES ?? 50);
const RECHECKS = 5;
const VALUES = 1000;
const SCOPES = ['read_products', 'write_products', 'read_metafields', 'write_metafields'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A random id in [lo, hi] not drawn before (from `seen`). */
function freshId(lo, hi, seen) {
  for (;;) {
    const id = lo + BigInt(Math.floor(Math.random() * Number(hi - lo + 1n)));
    if (!seen.has(id)) {
      seen.add(id);
      return id;
    }
  }
}

function admin(origin, token) {
  return async (method, path, body) => {
    const r = await request(`${origin}/admin/openapi/${VERSION}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.body.text();
    if (r.statusCode >= 300) throw new Error(`${method} ${path}: ${r.statusCode} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
}

const definition = (key, max) => ({
  owner_resource: 'products',
  namespace: 'bench',
  key,
  name: key,
  type: 'number_integer',
  validations: [{ name: 'max', value: String(max) }],
});

async function timeEach(count, fn) {
  await fn(-2);
  await fn(-1);
  const ms = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await fn(i);
    ms.push(performance.now() - started);
  }
  return summary(ms);
}

/** Listing pages, value writes and re-checks on `stores` (one big store, or the many). */
async function measure(database, stores) {
  const api = await startApi(database, { PLATFORM_METAFIELD_RECHECK_INTERVAL_MS: '10' });
  const pick = (i) => stores[Math.abs(i * 7919) % stores.length];
  const seen = new Set();
  const listing = await timeEach(PAGES, async (i) => {
    const store = pick(i + 3);
    const since = freshId(BigInt(store.minId) - 1n, BigInt(store.maxId) - 250n, seen);
    const r = await admin(api.origin, store.token)('GET', `/products/products.json?limit=250&since_id=${since}`);
    if (r.products.length === 0) throw new Error('an empty page');
  });

  // The written definition, made before the timing in every store a write goes to (the warm-ups'
  // included); the re-checked one in one store.
  const targets = new Map(Array.from({ length: WRITES + 2 }, (_, i) => pick(i + 9)).map((s) => [s.handle, s]));
  for (const store of targets.values())
    await admin(api.origin, store.token)('POST', '/metafield_definition.json', { definition: definition('score', 1_000_000) });
  const written = new Set();
  const write = await timeEach(WRITES, async (i) => {
    const store = pick(i + 11);
    const call = admin(api.origin, store.token);
    const owner = freshId(BigInt(store.minId), BigInt(store.maxId), written);
    await call('POST', '/metafields_set.json', {
      metafields: [{ owner_resource: 'products', owner_id: owner.toString(), namespace: 'bench', key: 'score', value: String(i + 10) }],
    });
  });
  const recheck = await recheckTimes(database, api.origin, stores[Math.floor(stores.length / 2)]);
  await api.stop();
  return { listing, write, recheck };
}

/** VALUES values of a new definition in `store` (written in SQL), then its rules changed RECHECKS times. */
async function recheckTimes(database, origin, store) {
  if (store.count < VALUES)
    throw new Error(`the re-check needs a store of ${VALUES} products at least (${store.handle} has ${store.count})`);
  const call = admin(origin, store.token);
  const { definition: made } = await call('POST', '/metafield_definition.json', { definition: definition('checked', VALUES) });
  const sql = await openSql(database);
  const [{ rules_revision: revision }] = await sql.run('SELECT rules_revision FROM metafield_definitions WHERE id = ?', [made.id]);
  await sql.run(
    `INSERT INTO metafields (store_id, owner_resource, owner_id, namespace, key, type, value, definition_id, valid, invalid_reasons, checked_revision, created_at, updated_at)
     SELECT store_id, 'products', id, 'bench', 'checked', 'number_integer', CAST(ROW_NUMBER() OVER (ORDER BY id) AS TEXT), ?, true, '[]', ?, created_at, updated_at
     FROM (SELECT store_id, id, created_at, updated_at FROM products WHERE store_id = ? ORDER BY id LIMIT ?) AS first`,
    [made.id, revision, store.storeId, VALUES],
  );
  const ms = [];
  try {
    for (let round = 0; round < RECHECKS; round++) {
      const max = round % 2 === 0 ? VALUES / 2 : VALUES;
      const started = performance.now();
      await call('PUT', '/metafield_definition.json', { definition: { ...definition('checked', max), name: undefined, type: undefined } });
      for (;;) {
        const [job] = await sql.run('SELECT status FROM metafield_rechecks WHERE definition_id = ? ORDER BY id DESC LIMIT 1', [made.id]);
        if (job?.status === 'done') break;
        await sleep(2);
      }
      ms.push(performance.now() - started);
      const [{ n }] = await sql.run('SELECT COUNT(*) AS n FROM metafields WHERE definition_id = ? AND NOT valid', [made.id]);
      if (Number(n) !== (max < VALUES ? VALUES / 2 : 0)) throw new Error(`the re-check left ${n} values invalid under max ${max}`);
    }
  } finally {
    await sql.close();
  }
  return summary(ms);
}

/**
 * seedStores, once more under another prefix if the import request fails on its connection (once,
 * on a machine at a load average of 9, the API closed it while the 2.5 MB import body was being
 * sent: EPIPE, no answer to read); the first try's stores stay, empty, beside.
 */
async function seed(database, options) {
  try {
    return await seedStores(database, options);
  } catch (error) {
    if (!String(error?.cause?.code ?? '').startsWith('E')) throw error;
    console.warn(`  seeding ${options.prefix} failed (${error.cause.code}); once more as ${options.prefix}r`);
    return seedStores(database, { ...options, prefix: `${options.prefix}r` });
  }
}

/** Every step on one database: `products` (sizes of one store), then `many` ({ stores, perStore }). */
export async function measureCatalog(database, { products, many }) {
  const out = [];
  for (const [k, size] of products.entries()) {
    const started = performance.now();
    const { stores } = await seed(database, { prefix: `one${k}`, stores: 0, perStore: 0, bigStore: size, scopes: SCOPES });
    const seedSeconds = (performance.now() - started) / 1000;
    out.push({ label: `one store of ${size.toLocaleString('en-US')}`, seedSeconds, ...(await measure(database, stores)) });
    console.log(' ', JSON.stringify(out.at(-1)));
  }
  if (many) {
    const started = performance.now();
    const { stores } = await seed(database, { prefix: 'many', stores: many.stores, perStore: many.perStore, scopes: SCOPES });
    const seedSeconds = (performance.now() - started) / 1000;
    const label = `${many.stores.toLocaleString('en-US')} stores of ${many.perStore.toLocaleString('en-US')}`;
    out.push({ label, seedSeconds, ...(await measure(database, stores)) });
    console.log(' ', JSON.stringify(out.at(-1)));
  }
  return out;
}
