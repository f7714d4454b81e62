// Before run 1: fill the compiled-validator cache of every API process to its entry bound, so that
// the memory of the runs is compared with caches already full. Each definition version a value is
// written against is compiled and kept (MetafieldValidators: keyed by id, rules revision and
// updated_at, at most VALIDATOR_CACHE_MAX_ENTRIES); the workload's definition updates add versions
// all the time, so without this the cache would still be filling during runs 1-3 (by design,
// bounded) and look like growth. fillListingCaches does the same for the listing's page cache.
import { VERSION } from '../lib/harness.mjs';

const ENTRIES = 1000; // apps/api metafield-rules.ts VALIDATOR_CACHE_MAX_ENTRIES
const CHAINS = 20;

/** `processes`: each API process's own origin (a replica's own port, not the balancer). */
export async function fillValidatorCaches(origin, processes, { token, productId }) {
  const call = async (base, method, path, body, ok) => {
    // A 503 is retried here (SQLite's busy value writes: see repro/sqlite-value-write-busy.mjs);
    // the runs count every one.
    for (let attempt = 1; ; attempt++) {
      const r = await fetch(`${base}/admin/openapi/${VERSION}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (ok.includes(r.status)) return;
      if (r.status !== 503 || attempt === 3) throw new Error(`warm-up ${method} ${path}: ${r.status} ${await r.text()}`);
    }
  };
  // One definition per chain, changed and then written under only by its chain: no write ever
  // races with an update of its own definition.
  await Promise.all(
    Array.from({ length: CHAINS }, async (_, c) => {
      const definition = { owner_resource: 'products', namespace: 'load_warm_up', key: `chain_${c}` };
      await call(
        origin,
        'POST',
        '/metafield_definition.json',
        { definition: { ...definition, name: `Warm-up ${c}`, type: 'number_integer', validations: [{ name: 'max', value: '100' }] } },
        [201],
      );
      for (let version = 0; version < ENTRIES / CHAINS; version++) {
        await call(
          origin,
          'PUT',
          '/metafield_definition.json',
          { definition: { ...definition, description: `version ${version}` } },
          [200],
        );
        for (const p of processes)
          await call(
            p.origin,
            'POST',
            `/products/${productId}/metafields.json`,
            { metafield: { namespace: definition.namespace, key: definition.key, value: String(version) } },
            [200, 201],
          );
      }
    }),
  );
}

const LISTING_CACHE_MB = 64; // apps/api config.ts: PLATFORM_LISTING_CACHE_MB's default

/**
 * Before run 1: fill each API process's listing page cache (least recently used, bounded by bytes)
 * past its bound with distinct pages (since_id values across the catalogue), so that run 1 does not
 * end with the cache still filling, which would show as growth in the runs after it.
 */
export async function fillListingCaches(processes, { token, firstProductId, lastProductId }) {
  const page = (base, sinceId) =>
    fetch(`${base}/admin/openapi/${VERSION}/products/products.json?limit=50&since_id=${sinceId}`, {
      headers: { authorization: `Bearer ${token}` },
    }).then(async (r) => {
      const body = await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`warm-up listing: ${r.status} ${Buffer.from(body).toString()}`);
      return body.byteLength;
    });
  for (const { origin } of processes) {
    const pageBytes = await page(origin, firstProductId);
    const pages = Math.ceil((1.5 * LISTING_CACHE_MB * 1024 * 1024) / pageBytes);
    const span = lastProductId - firstProductId - 50;
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < pages) await page(origin, firstProductId + Math.floor((next++ * span) / pages));
      }),
    );
  }
}
