// Many stores with heavy products (bench/lib/products.mjs) for the listing walk and bench/scale:
// store 0's products imported through the operator API (the platform renders their documents),
// the other stores' copied from them in SQL (the database's own bulk path: rows, documents and
// listing documents as they are; a copied listing document keeps the id of the product it was
// copied from inside it, which nothing the benchmarks measure reads).
import { heavyProduct } from './products.mjs';
import { openSql, operatorPost, startApi } from './harness.mjs';

/**
 * `stores` stores `{prefix}-{k}` of `perStore` products each, and, when `bigStore` > 0, one more,
 * `{prefix}-big`, of `bigStore` products; each with a private app (`scopes`: read and write products
 * unless given). Returns
 * `{ stores: [{ handle, storeId, token, minId, maxId, count }] }`, the big store last.
 */
export async function seedStores(
  database,
  { prefix = 'walk', stores, perStore, bigStore = 0, env = {}, scopes = ['read_products', 'write_products'] },
) {
  const api = await startApi(database, env);
  const made = [];
  const handles = Array.from({ length: stores }, (_, k) => `${prefix}-${k}`);
  if (bigStore > 0) handles.push(`${prefix}-big`);
  for (const handle of handles) {
    await operatorPost(api.origin, '/stores', { store: { handle, name: handle } });
    const app = await operatorPost(api.origin, '/apps', {
      app: { name: handle, kind: 'private', scopes, store_handle: handle },
    });
    made.push({ handle, token: app.access_token });
  }
  const template = Math.min(perStore || bigStore, 1000);
  for (let start = 0; start < template; start += 1000) {
    const products = Array.from({ length: Math.min(1000, template - start) }, (_, i) => heavyProduct(start + i, prefix));
    await operatorPost(api.origin, `/stores/${handles[0]}/products`, { products });
  }
  await api.stop();
  const sql = await openSql(database);
  const idOf = async (handle) => (await sql.run('SELECT id FROM stores WHERE handle = ?', [handle]))[0].id;
  const source = await idOf(handles[0]);
  const copy = async (storeId, n) => {
    for (let done = 0; done < n; done += template) {
      await sql.run(
        `INSERT INTO products (store_id, handle, title, status, doc, listing_doc, listing_zone, published_at, created_at, updated_at)
         SELECT ?, handle, title, status, doc, listing_doc, listing_zone, published_at, created_at, updated_at
         FROM products WHERE store_id = ? ORDER BY id LIMIT ?`,
        [storeId, source, Math.min(template, n - done)],
      );
    }
  };
  for (const [k, store] of made.entries()) {
    store.storeId = String(await idOf(store.handle));
    const want = k < stores ? perStore : bigStore;
    const have = store.storeId === String(source) ? template : 0;
    if (want > have) await copy(store.storeId, want - have);
    const [range] = await sql.run('SELECT MIN(id) AS lo, MAX(id) AS hi, COUNT(*) AS n FROM products WHERE store_id = ?', [store.storeId]);
    Object.assign(store, { minId: String(range.lo), maxId: String(range.hi), count: Number(range.n) });
  }
  if (!database.includes('://')) await sql.run('ANALYZE');
  else await sql.run('ANALYZE products');
  await sql.close();
  return { stores: made };
}
