#!/usr/bin/env node
// bench/import (issue 17): product import through the operator API ({"products":[...]}, 1,000 per
// request) against a bare insert loop of the same rows in the same run (prepared statements, one
// transaction per 1,000 products), on SQLite and on PostgreSQL, for two weights of product: light
// (an option, an image, two variants and their inventory items) and, since issue 48, heavy, the way
// stores hold products (two options, two images, three variants with prices, barcodes and weights,
// 900 bytes of description). On PostgreSQL the heavy products' bare loop is also run with one
// multi-row INSERT per table and transaction (the fair baseline: the API inserts that way). One
// command: `pnpm bench:import` (BENCH_IMPORT_WEIGHTS=light or heavy for one). Results:
// bench/results/import.md. Goals: >= 5,000 products/s on SQLite, >= 3,000 on PostgreSQL.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { operatorPost, root, startApi, writeResults } from '../lib/harness.mjs';
import { startPostgres } from '../lib/postgres.mjs';

const require = createRequire(import.meta.url);
const PRODUCTS = Number(process.env.BENCH_IMPORT_PRODUCTS ?? 20_000);
const PER_REQUEST = 1000;
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,postgresql').split(',');

const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

const WEIGHTS = (process.env.BENCH_IMPORT_WEIGHTS ?? 'light,heavy').split(',');
const DESCRIPTION = `<p>${'Solid oak, oiled by hand; every piece differs a little in grain and colour. '.repeat(12)}</p>`.slice(0, 900);

const PRODUCTS_OF = {
  light: (i) => ({
    title: `Imported product ${i}`,
    body_html: `<p>${'Lorem ipsum dolor sit amet. '.repeat(8)}</p>`,
    vendor: 'Bench',
    tags: 'bench, import',
    images: [{ src: `https://cdn.example.com/${i}.png`, alt: 'image' }],
    options: [{ name: 'Size', values: ['S', 'M'] }],
    variants: [
      { sku: `I-${i}-S`, price: '19.99', option1: 'S' },
      { sku: `I-${i}-M`, price: '21.99', option1: 'M' },
    ],
  }),
  heavy: (i) => ({
    title: `Oak side table ${i}`,
    body_html: DESCRIPTION,
    vendor: 'Lumen & Co',
    product_type: 'Furniture',
    tags: 'oak, furniture, living room',
    images: [
      { src: `https://cdn.example.com/${i}-front.jpg`, alt: 'Front' },
      { src: `https://cdn.example.com/${i}-side.jpg`, alt: 'Side' },
    ],
    options: [
      { name: 'Size', values: ['S', 'M', 'L'] },
      { name: 'Finish', values: ['Oiled', 'Waxed'] },
    ],
    variants: ['S', 'M', 'L'].map((size, k) => ({
      sku: `T-${i}-${size}`,
      barcode: String(4006381333931 + 10 * i + k),
      price: `${149 + 20 * k}.00`,
      compare_at_price: `${179 + 20 * k}.00`,
      weight: `${(6.5 + k).toFixed(1)}`,
      weight_unit: 'kg',
      option1: size,
      option2: 'Oiled',
      inventory_quantity: 12,
      cost: '61.50',
    })),
  }),
};
let product = PRODUCTS_OF.light;

/** The platform: POST /platform/v1/stores/{handle}/products, 1,000 a request, one after the other. */
async function throughApi(database, env) {
  // BENCH_API_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the API process
  const nodeArgs = (process.env.BENCH_API_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const api = await startApi(database, env, { nodeArgs });
  await operatorPost(api.origin, '/stores', { store: { handle: 'importer', name: 'Importer' } });
  await operatorPost(api.origin, '/stores/importer/products', { products: Array.from({ length: PER_REQUEST }, (_, i) => product(-i - 1)) }); // warm-up
  const bodies = [];
  for (let start = 0; start < PRODUCTS; start += PER_REQUEST)
    bodies.push({ products: Array.from({ length: PER_REQUEST }, (_, i) => product(start + i)) });
  const started = performance.now();
  for (const body of bodies) await operatorPost(api.origin, '/stores/importer/products', body);
  const seconds = (performance.now() - started) / 1000;
  await api.stop();
  return PRODUCTS / seconds;
}

/** A migrated database with the store `importer` and nothing else (the API started and stopped on it). */
async function operatorStore(database) {
  const api = await startApi(database, {});
  await operatorPost(api.origin, '/stores', { store: { handle: 'importer', name: 'Importer' } });
  await api.stop();
}

/** The same rows by a bare program: prepared inserts, one transaction per 1,000 products. */
function rowsOf(i, ids, storeId, now) {
  const p = product(i);
  const doc = JSON.stringify(p);
  return {
    product: [ids.product, storeId, p.title, `imported-${i}`, 'active', doc, Buffer.from(doc), 'UTC', now, now, now],
    options: p.options.map((o, k) => [ids.option + k, ids.product, k + 1, o.name]),
    images: p.images.map((m, k) => [ids.image + k, ids.product, k + 1, m.src, m.alt]),
    variants: p.variants.map((v, k) => [ids.variant + k, ids.product, storeId, k + 1, v.sku, '', now, now]),
    items: p.variants.map((v, k) => [ids.item + k, storeId, ids.variant + k, v.sku, '0.00', true, 'normal', now, now]),
  };
}

const SQL = {
  product:
    'INSERT INTO products (id, store_id, title, handle, status, doc, listing_doc, listing_zone, published_at, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)',
  option: 'INSERT INTO product_options (id, product_id, position, name) VALUES (?,?,?,?)',
  image: 'INSERT INTO product_images (id, product_id, position, src, alt) VALUES (?,?,?,?,?)',
  variant: 'INSERT INTO product_variants (id, product_id, store_id, position, sku, title, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?)',
  item: 'INSERT INTO inventory_items (id, store_id, variant_id, sku, cost, tracked, location_type, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)',
};
const BASE_ID = 10_000_000;

async function bareLoop(database, { multiRow = false } = {}) {
  const start = performance.now();
  if (!database.includes('://')) {
    const Database = require('better-sqlite3');
    const db = new Database(database);
    const storeId = db.prepare("SELECT id FROM stores WHERE handle = 'importer'").get().id;
    const now = new Date().toISOString().replace('Z', '+00:00');
    const st = Object.fromEntries(Object.entries(SQL).map(([k, sql]) => [k, db.prepare(sql)]));
    const batch = db.transaction((from) => {
      for (let i = from; i < from + PER_REQUEST; i++) {
        const n = BASE_ID + i;
        const r = rowsOf(i, { product: n, option: 2 * n, image: 2 * n, variant: 3 * n, item: 3 * n }, storeId, now);
        st.product.run(...r.product);
        for (const o of r.options) st.option.run(...o);
        for (const m of r.images) st.image.run(...m);
        for (const v of r.variants) st.variant.run(...v);
        for (const item of r.items) st.item.run(...item.map((x) => (x === true ? 1 : x)));
      }
    });
    for (let from = 0; from < PRODUCTS; from += PER_REQUEST) batch(from);
    db.close();
  } else {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    const [{ id: storeId }] = (await client.query("SELECT id FROM stores WHERE handle = 'importer'")).rows;
    const now = new Date();
    const named = Object.fromEntries(
      Object.entries(SQL).map(([k, sql]) => {
        let n = 0;
        return [k, { name: `bench_${k}`, text: sql.replace(/\?/g, () => `$${++n}`) }];
      }),
    );
    for (let from = 0; from < PRODUCTS && multiRow; from += PER_REQUEST) {
      // One INSERT per table and transaction, as the API writes (parameters well under 65,535).
      const tables = { product: [], option: [], image: [], variant: [], item: [] };
      for (let i = from; i < from + PER_REQUEST; i++) {
        const n = BASE_ID + i;
        const r = rowsOf(i, { product: n, option: 2 * n, image: 2 * n, variant: 3 * n, item: 3 * n }, storeId, now);
        tables.product.push(r.product);
        tables.option.push(...r.options);
        tables.image.push(...r.images);
        tables.variant.push(...r.variants);
        tables.item.push(...r.items);
      }
      await client.query('BEGIN');
      for (const [k, list] of Object.entries(tables)) {
        const [head] = SQL[k].split(' VALUES ');
        let n = 0;
        const values = list.map((row) => `(${row.map(() => `$${++n}`).join(',')})`).join(',');
        await client.query(`${head} VALUES ${values}`, list.flat());
      }
      await client.query('COMMIT');
    }
    for (let from = 0; from < PRODUCTS && !multiRow; from += PER_REQUEST) {
      await client.query('BEGIN');
      for (let i = from; i < from + PER_REQUEST; i++) {
        const n = BASE_ID + i;
        const r = rowsOf(i, { product: n, option: 2 * n, image: 2 * n, variant: 3 * n, item: 3 * n }, storeId, now);
        await client.query({ ...named.product, values: r.product });
        for (const o of r.options) await client.query({ ...named.option, values: o });
        for (const m of r.images) await client.query({ ...named.image, values: m });
        for (const v of r.variants) await client.query({ ...named.variant, values: v });
        for (const item of r.items) await client.query({ ...named.item, values: item });
      }
      await client.query('COMMIT');
    }
    await client.end();
  }
  return PRODUCTS / ((performance.now() - start) / 1000);
}

const rows = [];
for (const weight of WEIGHTS) {
  product = PRODUCTS_OF[weight];
  for (const kind of DATABASES) {
    if (kind === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'bench-import-'));
      const file = join(dir, 'import.db');
      const platform = await throughApi(file, { PLATFORM_SQLITE_DRIVER: 'better-sqlite3' });
      rows.push({ weight, kind: 'SQLite (better-sqlite3)', platform, bare: await bareLoop(file), goal: 5000 });
      rmSync(dir, { recursive: true, force: true });
    } else {
      const pg = await startPostgres(`import_${weight}`);
      const platform = await throughApi(pg.url, {});
      const bare = await bareLoop(pg.url);
      rows.push({ weight, kind: 'PostgreSQL', platform, bare, goal: 3000 });
      if (weight === 'heavy') {
        // The multi-row loop in a database of its own, so it inserts into tables as empty as the API's did.
        await pg.stop();
        const again = await startPostgres(`import_${weight}_multi`);
        await operatorStore(again.url);
        rows.push({
          weight,
          kind: 'PostgreSQL, bare multi-row INSERTs',
          platform,
          bare: await bareLoop(again.url, { multiRow: true }),
          goal: 3000,
        });
        await again.stop();
      } else await pg.stop();
    }
  }
}

const f = (n) => Math.round(n).toLocaleString('en-US');
const lines = [
  `Run ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}, load average ${loadavg()[0].toFixed(2)} at the end; ` +
    `${PRODUCTS.toLocaleString('en-US')} products of each weight, ${PER_REQUEST} per request or transaction. Light: an option, an image, two variants and their inventory items. ` +
    'Heavy: two options, two images, three variants with prices, compare-at prices, barcodes, weights and costs, and their inventory items, 900 bytes of description. ' +
    'The bare loops insert the same rows with prepared statements, one row a statement; the multi-row loop one INSERT per table and transaction.',
  '',
  '| Products | Database | Operator API, products/s | Bare insert loop, products/s | API / bare | Goal | |',
  '|---|---|---:|---:|---:|---:|---|',
  ...rows.map(
    (r) =>
      `| ${r.weight} | ${r.kind} | ${f(r.platform)} | ${f(r.bare)} | ${(r.platform / r.bare).toFixed(2)}x | >= ${f(r.goal)}/s | ${r.platform >= r.goal ? 'met' : '**not met**'} |`,
  ),
];
writeResults('import', lines.join('\n'));
