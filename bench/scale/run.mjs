#!/usr/bin/env node
// bench/scale (issue 48 §1): cost as the data grows. On SQLite and PostgreSQL:
//   - the delivery history at each size of BENCH_SCALE_DELIVERIES (default 10,000, 1,000,000 and
//     10,000,000 deliveries; a fresh database each, seeded in bulk SQL: history.mjs): a claim, GET
//     /metrics, the operator's deliveries list, the merchant's deliveries page, and the database's
//     size on disk after a retention pass (deliveries.mjs);
//   - products at each size of BENCH_SCALE_PRODUCTS in one store (default 100,000 and 1,000,000)
//     and in BENCH_SCALE_STORES (default 1000x1000): listing p50/p99, a value write, a re-check
//     (catalog.mjs).
// Goal: each measurement within 1.5x from the smallest size to the largest (largest / smallest,
// p50 and p99). `pnpm --filter @platform/bench run bench:scale`; BENCH_DATABASES to run one;
// BENCH_SCALE_DELIVERIES=, BENCH_SCALE_PRODUCTS= (empty) to leave a part out. Results:
// bench/results/scale.md.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, writeResults } from '../lib/harness.mjs';
import { startPostgres } from '../lib/postgres.mjs';
import { measureCatalog } from './catalog.mjs';
import { measureHistory } from './deliveries.mjs';

const list = (name, fallback) =>
  (process.env[name] ?? fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const DELIVERIES = list('BENCH_SCALE_DELIVERIES', '10000,1000000,10000000').map(Number);
const PRODUCTS = list('BENCH_SCALE_PRODUCTS', '100000,1000000').map(Number);
const [STORES] = list('BENCH_SCALE_STORES', '1000x1000').map((s) => {
  const [stores, perStore] = s.split('x').map(Number);
  return { stores, perStore };
});
const DATABASES = list('BENCH_DATABASES', 'sqlite,postgresql');
const GOAL = 1.5;

if (!process.env.BENCH_NO_BUILD && !process.env.BENCH_SCALE_MERGE) {
  const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(1);
}

/** A fresh database of `kind` for `fn`, dropped after. */
async function onFresh(kind, fn) {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-scale-'));
    try {
      return await fn(join(dir, 'scale.db'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const pg = await startPostgres('scale');
  try {
    return await fn(pg.url);
  } finally {
    await pg.stop();
  }
}

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ');
// BENCH_SCALE_SAVE=file: each database's results kept there as JSON as soon as it is done (a long run
// cut short keeps what it measured); BENCH_SCALE_MERGE=a.json,b.json: no measuring, the table of
// runs saved before (e.g. one per database; a run's `note`, added by hand, is printed with it).
const saved = list('BENCH_SCALE_MERGE', '');
const results = saved.flatMap((file) => JSON.parse(readFileSync(file, 'utf8')));
for (const kind of saved.length > 0 ? [] : DATABASES) {
  const name = kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const run = {
    name,
    started: new Date().toISOString(),
    loadStart: load(),
    sizes: { DELIVERIES, PRODUCTS, STORES },
    history: [],
    catalog: [],
  };
  for (const total of DELIVERIES) {
    console.log(`${name}: delivery history of ${total.toLocaleString('en-US')}`);
    run.history.push(await onFresh(kind, (database) => measureHistory(database, total)));
  }
  if (PRODUCTS.length > 0 || STORES) {
    console.log(`${name}: products`);
    run.catalog = await onFresh(kind, (database) => measureCatalog(database, { products: PRODUCTS, many: STORES }));
  }
  Object.assign(run, { ended: new Date().toISOString(), loadEnd: load() });
  results.push(run);
  if (process.env.BENCH_SCALE_SAVE) writeFileSync(process.env.BENCH_SCALE_SAVE, JSON.stringify(results));
}

const ms = (n) => (n < 10 ? `${n.toFixed(2)} ms` : `${n.toFixed(1)} ms`);
const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;
const lat = (s) => `${ms(s.p50)} / ${ms(s.p99)}`;
const goals = [];
/** largest size's value / smallest size's, against the goal; recorded for the goals list. */
function ratio(db, what, values) {
  if (values.length < 2) return '';
  const r = values.at(-1) / values[0];
  goals.push({ db, what, r, met: r <= GOAL });
  return `${r.toFixed(2)}x`;
}

const f = (n) => Math.round(n).toLocaleString('en-US');
const sizes = ({ DELIVERIES: d, PRODUCTS: p, STORES: s }) =>
  `deliveries ${d.map(f).join(', ') || 'none'}; products ${p.map(f).join(', ') || 'none'} in one store${s ? `, ${f(s.stores)} stores of ${f(s.perStore)}` : ''}`;
const lines = [
  `${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}. The command's default sizes: deliveries 10,000, 1,000,000, ` +
    '10,000,000; products 100,000, 1,000,000 in one store, 1,000 stores of 1,000. This run:',
  '',
  ...results.map(
    (r) =>
      `- ${r.name}: ${r.started.slice(0, 16).replace('T', ' ')} to ${r.ended.slice(11, 16)} UTC, load average (1, 5, 15 min) ${r.loadStart} at the start, ` +
      `${r.loadEnd} at the end; sizes: ${sizes(r.sizes)}.${r.note ? ` ${r.note}` : ''}`,
  ),
  '',
  `Goal: each measurement within ${GOAL}x from the smallest size to the largest (ratio = largest / smallest; latencies p50 / p99 in ms).`,
];
for (const { name, history, catalog } of results) {
  if (history.length > 0) {
    lines.push(
      '',
      `**${name}, delivery history** (p50 / p99 of ${history[0].metrics.n} requests one after the other; a claim: commit to receipt of one due delivery through the sender; ` +
        'size: after a retention pass of the 30-day default removed what is older' +
        (name.startsWith('SQLite')
          ? '; the file after a checkpoint, and in brackets its pages in use'
          : ", the senders' compaction of the tables (apps/webhooks/src/compact.ts) over; pg_database_size after a VACUUM") +
        ')',
      '',
      '| Deliveries | Seeded in | Claim | /metrics | Operator list, first page | Page at since_id (middle) | The page after it (page_info) | Merchant deliveries page | Retention pass | Size after it |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const h of history)
      lines.push(
        `| ${f(h.total)} | ${f(h.seedSeconds)} s | ${lat(h.claim)} | ${lat(h.metrics)} | ${lat(h.listFirst)} | ${lat(h.listDeep)} | ${lat(h.listNext)} | ${lat(h.merchant)} | ${h.retention.seconds.toFixed(1)} s${h.retention.compactSeconds === undefined ? '' : ` + ${h.retention.compactSeconds.toFixed(1)} s compacting`} | ${mb(h.retention.bytes)}${h.retention.inUse === undefined ? '' : ` (${mb(h.retention.inUse)})`} |`,
      );
    const row = ['| largest / smallest', ''];
    for (const key of ['claim', 'metrics', 'listFirst', 'listDeep', 'listNext', 'merchant']) {
      const label = {
        claim: 'claim',
        metrics: '/metrics',
        listFirst: 'operator list, first page',
        listDeep: 'operator list, page at since_id',
        listNext: 'operator list, page_info page',
        merchant: 'merchant deliveries page',
      }[key];
      row.push(
        `${ratio(
          name,
          `${label} p50`,
          history.map((h) => h[key].p50),
        )} / ${ratio(
          name,
          `${label} p99`,
          history.map((h) => h[key].p99),
        )}`,
      );
    }
    row.push(
      '',
      ratio(
        name,
        'size on disk after a retention pass',
        history.map((h) => h.retention.bytes),
      ),
    );
    lines.push(`${row.join(' | ')} |`);
  }
  if (catalog.length > 0) {
    lines.push(
      '',
      `**${name}, products** (one database that grows step by step; p50 / p99: ${catalog[0].listing.n} listing pages of 250 at since_ids never asked before, ` +
        `${catalog[0].write.n} value writes on as many products, ${catalog[0].recheck.n} re-checks of 1,000 values)`,
      '',
      '| Catalog | Seeded in | Listing page | Value write | Re-check |',
      '|---|---:|---:|---:|---:|',
      ...catalog.map((c) => `| ${c.label} | ${f(c.seedSeconds)} s | ${lat(c.listing)} | ${lat(c.write)} | ${lat(c.recheck)} |`),
    );
    const row = ['| largest / smallest', ''];
    for (const [key, label] of [
      ['listing', 'listing page'],
      ['write', 'value write'],
      ['recheck', 're-check'],
    ])
      row.push(
        `${ratio(
          name,
          `${label} p50`,
          catalog.map((c) => c[key].p50),
        )} / ${ratio(
          name,
          `${label} p99`,
          catalog.map((c) => c[key].p99),
        )}`,
      );
    lines.push(`${row.join(' | ')} |`);
  }
}
lines.push('', '| Database | Goal: within 1.5x | Ratio | |', '|---|---|---:|---|');
for (const g of goals) lines.push(`| ${g.db} | ${g.what} | ${g.r.toFixed(2)}x | ${g.met ? 'met' : '**not met**'} |`);
writeResults('scale', lines.join('\n'));
