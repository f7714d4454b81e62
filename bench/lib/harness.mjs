// Shared by the benchmarks: starting the built API on its own SQLite file, seeding a large catalogue
// through the operator API, and writing a result table to bench/results.
import { SENDER_MAIN, startApi as startBuiltApi, startProgram } from '@platform/test-process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const VERSION = 'v20260901';
export const OPERATOR = 'bench-operator-token-0123456789';
const require = createRequire(import.meta.url);

/**
 * The built API (apps/api/dist) on `dbFile` (a SQLite file, or a postgresql:// URL), listening on a
 * free loopback port, with no demo store, no sender and an effectively unlimited rate limit; its
 * stderr is this process's. `nodeArgs` go to Node (e.g. `--cpu-prof`). Resolves once it prints its
 * base URL, with its pid.
 */
export async function startApi(dbFile, env = {}, { nodeArgs = [] } = {}) {
  return startBuiltApi(
    {
      DATABASE_URL: databaseUrl(dbFile),
      PLATFORM_OPERATOR_TOKEN: OPERATOR,
      PLATFORM_SECRET: 'bench-secret-0123456789abcdef',
      PLATFORM_RATE_LIMIT_CAPACITY: '1000000000',
      PLATFORM_RATE_LIMIT_LEAK_PER_SECOND: '1000000000',
      PLATFORM_METAFIELD_RECHECK_INTERVAL_MS: '0',
      ...env,
    },
    { nodeArgs, inherit: ['stderr'] },
  );
}

const databaseUrl = (database) => (database.includes('://') ? database : `file:${database}`);

/**
 * A webhook sender (apps/webhooks/dist/main.js) on `database`, as `pnpm start` runs one beside the
 * API (PLATFORM_SENDER=embedded: its own process, started once the API has migrated), with its
 * default settings, private receivers allowed. Resolves at once; deliveries start with its claims.
 */
export function startSender(database, env = {}) {
  return startProgram(SENDER_MAIN, {
    env: { DATABASE_URL: databaseUrl(database), PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn', ...env },
    inherit: ['stdout', 'stderr'],
  });
}

export async function operatorPost(origin, path, body) {
  const r = await fetch(`${origin}/platform/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

/** SQL on the benchmark's database, whichever it is: `run(sql, params)` with `?` placeholders. */
export async function openSql(database) {
  if (database.includes('://')) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    return {
      run: async (sql, params = []) => {
        let n = 0;
        return (
          await client.query(
            sql.replace(/\?/g, () => `$${++n}`),
            params,
          )
        ).rows;
      },
      close: () => client.end(),
    };
  }
  const Database = require('better-sqlite3');
  const db = new Database(database);
  return {
    run: async (sql, params = []) => {
      const statement = db.prepare(sql);
      if (statement.reader) return statement.all(...params);
      statement.run(...params);
      return [];
    },
    close: async () => {
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    },
  };
}

/**
 * Store `bench` with a private app (read_products) and `products` products on `database` (a SQLite
 * file or a postgresql:// URL): 1,000 made through the operator API (whole documents: body, image,
 * options, two variants), then copied in SQL without their listing documents, which the API
 * renders when it starts (waitForListingDocuments). Returns the token, the store's id and the
 * highest product id.
 */
export async function seedCatalog(database, { products, tag, env = {} }) {
  const api = await startApi(database, env);
  await operatorPost(api.origin, '/stores', { store: { handle: 'bench', name: 'Bench' } });
  const app = await operatorPost(api.origin, '/apps', {
    app: { name: 'bench', kind: 'private', scopes: ['read_products'], store_handle: 'bench' },
  });
  for (let start = 0; start < 1000; start += 250) {
    const batch = Array.from({ length: 250 }, (_, i) => ({
      title: `Bench product ${start + i}`,
      body_html: `<p>${'Lorem ipsum dolor sit amet. '.repeat(8)}</p>`,
      vendor: 'Bench',
      tags: `bench, ${tag}`,
      images: [{ src: `https://cdn.example.com/${start + i}.png`, alt: 'image' }],
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [
        { sku: `B-${start + i}-S`, price: '19.99', option1: 'S' },
        { sku: `B-${start + i}-M`, price: '21.99', option1: 'M' },
      ],
    }));
    await operatorPost(api.origin, '/stores/bench/products', { products: batch });
  }
  await api.stop();
  const sql = await openSql(database);
  const [{ id: storeId }] = await sql.run("SELECT id FROM stores WHERE handle = 'bench'");
  let [{ n: count }] = await sql.run('SELECT COUNT(*) AS n FROM products');
  while (Number(count) < products) {
    await sql.run(
      `INSERT INTO products (store_id, handle, title, status, doc, published_at, created_at, updated_at)
       SELECT store_id, handle, title, status, doc, published_at, created_at, updated_at FROM products WHERE store_id = ? ORDER BY id LIMIT ?`,
      [storeId, Math.min(1000, products - Number(count))],
    );
    [{ n: count }] = await sql.run('SELECT COUNT(*) AS n FROM products');
  }
  const [{ m: maxId }] = await sql.run('SELECT MAX(id) AS m FROM products');
  await sql.close();
  return { token: app.access_token, storeId: String(storeId), maxId: String(maxId) };
}

/** Waits until the API has rendered every product's listing document (ListingDocumentsWorker). */
export async function waitForListingDocuments(database) {
  const sql = await openSql(database);
  for (;;) {
    const [{ n }] = await sql.run('SELECT COUNT(*) AS n FROM products WHERE listing_zone IS NULL');
    if (Number(n) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await sql.close();
}

/**
 * bench/results/{name}.md: the latest table of a benchmark (the README's one summary table, and
 * docs/performance.md, link there and are updated by hand with a run's figures, its date and load).
 * BENCH_NO_README=1 (a run with a profiler or other settings than the published ones): printed only,
 * no file written.
 */
export function writeResults(name, table) {
  console.log(`\n${table}\n`);
  if (process.env.BENCH_NO_README) return;
  writeFileSync(join(root, `bench/results/${name}.md`), `${table}\n`);
}
