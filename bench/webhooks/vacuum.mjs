#!/usr/bin/env node
// bench/webhooks/vacuum.mjs (PostgreSQL): what the senders' own VACUUM of webhook_deliveries costs as
// the delivery history grows. At each size of BENCH_VACUUM_HISTORY (default 10,000, 1,000,000 and
// 5,000,000 deliveries, seeded as bench/scale seeds them: history.mjs), ROUNDS times: 10,000
// deliveries go through the queue as a sender leaves them (inserted pending as the outbox writes
// them, leased in claims of 100 (a HOT update: no index names a lease column), recorded delivered
// (a new version in every index)), then the senders' statement (VACUUM_STATEMENT of
// apps/webhooks, built) runs, timed. The baseline is the smallest history, in the same run: a
// sender VACUUMs after every PLATFORM_SENDER_VACUUM_EVERY (10,000) deliveries it records, so the
// ratio is how much more of the database's time each delivery costs there.
// `pnpm --filter @platform/bench run bench:vacuum`; BENCH_DATABASE_URL to use a server of your
// own. Results: bench/results/webhooks-vacuum.md.
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { openSql, root, writeResults } from '../lib/harness.mjs';
import { startPostgres } from '../lib/postgres.mjs';
import { seedHistory } from '../scale/history.mjs';

const SIZES = (process.env.BENCH_VACUUM_HISTORY ?? '10000,1000000,5000000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_VACUUM_ROUNDS ?? 5);
const BATCH = 10_000;
const CLAIM = 100;

if (!process.env.BENCH_SKIP_BUILD) {
  const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--filter=@platform/webhooks...', '--output-logs=errors-only'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(1);
}
const { VACUUM_STATEMENT } = await import('../../apps/webhooks/dist/vacuum.js');

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const startedAt = new Date();
const loadBefore = load();

async function measure(total) {
  const pg = await startPostgres('vacuum');
  try {
    const t0 = performance.now();
    const history = await seedHistory(pg.url, { total, receiverUrl: 'http://127.0.0.1:9' });
    const seedSeconds = (performance.now() - t0) / 1000;
    const sql = await openSql(pg.url);
    const [subscription] = history.subscriptions;
    const ms = [];
    for (let round = 0; round < ROUNDS; round++) {
      await sql.run(
        `INSERT INTO webhook_deliveries (store_id, app_id, subscription_id, topic, webhook_id, api_version, body, triggered_at,
           status, attempts, next_attempt_at, created_at, updated_at)
         SELECT ?, ?, ?, 'inventory_items/update', gen_random_uuid()::text, 'v20260901', '{"inventory_item":{"id":"' || x || '"}}',
           now(), 'pending', 0, now() AT TIME ZONE 'UTC', now(), now()
         FROM generate_series(1, ${BATCH}) AS s(x)`,
        [history.store, history.appId, subscription],
      );
      for (let claimed = 0; claimed < BATCH; claimed += CLAIM) {
        await sql.run(
          `UPDATE webhook_deliveries SET lease_owner = 'bench', lease_until = now() + interval '10 s', lease_host = '127.0.0.1'
           WHERE id IN (SELECT id FROM webhook_deliveries WHERE status = 'pending' AND subscription_id = ? AND lease_owner IS NULL
             AND next_attempt_at <= now() AT TIME ZONE 'UTC' ORDER BY next_attempt_at, id LIMIT ${CLAIM})`,
          [subscription],
        );
        await sql.run(
          `UPDATE webhook_deliveries SET status = 'delivered', attempts = 1, delivered_at = now(), lease_owner = NULL, lease_until = NULL,
             lease_host = NULL, updated_at = now()
           WHERE status = 'pending' AND lease_owner = 'bench'`,
        );
      }
      const v0 = performance.now();
      await sql.run(VACUUM_STATEMENT);
      ms.push(performance.now() - v0);
    }
    const [{ bytes }] = await sql.run(`SELECT pg_total_relation_size('webhook_deliveries') AS bytes`);
    await sql.close();
    const result = { total, seedSeconds, ms, bytes: Number(bytes) };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await pg.stop();
  }
}

const results = [];
for (const total of SIZES) results.push(await measure(total));

const f = (n) => n.toLocaleString('en-US');
const base = median(results[0].ms);
const lines = [
  `Run ${startedAt.toISOString().slice(0, 16)}Z on ${cpus().length} cores (${cpus()[0].model.trim()}), Node ${process.version}, PostgreSQL; load average ${loadBefore} at the start and ${load()} at the end (1, 5, 15 min). ` +
    `Each round: ${f(BATCH)} deliveries inserted pending, leased in claims of ${CLAIM}, recorded delivered, then the senders' \`${VACUUM_STATEMENT}\`, timed; ${ROUNDS} rounds a size, the median (each round's in brackets). ` +
    `A sender runs it after every PLATFORM_SENDER_VACUUM_EVERY (default ${f(BATCH)}) deliveries it records; the history is bench/scale's (history.mjs).`,
  '',
  `| Deliveries in the history | Table with its indexes | VACUUM after ${f(BATCH)} deliveries (rounds) | Against the smallest history |`,
  '|---:|---:|---:|---:|',
  ...results.map(
    (r) =>
      `| ${f(r.total)} | ${f(Math.round(r.bytes / 1024 / 1024))} MB | ${median(r.ms).toFixed(0)} ms (${r.ms.map((x) => x.toFixed(0)).join(' / ')}) | ${(median(r.ms) / base).toFixed(2)}x |`,
  ),
];
writeResults('webhooks-vacuum', lines.join('\n'));
