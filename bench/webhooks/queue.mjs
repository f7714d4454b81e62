#!/usr/bin/env node
// bench/webhooks/queue.mjs (issue 48 §3): our sender against the queue a platform team without it
// would run, graphile-worker on PostgreSQL with one job per event whose task POSTs the signed body
// with undici and lets graphile-worker retry a failure (graphile-worker.mjs). Both in processes of
// their own, in one run, on the same PostgreSQL database (a throwaway cluster, or a fresh database
// on BENCH_DATABASE_URL's server), the same receiver process and the same event bodies. Measured:
// deliveries/s draining EVENTS due events (ours: the delivery rows committed in one transaction and
// the senders woken, as bench/webhooks; graphile-worker: as many jobs added in one transaction with
// graphile_worker.add_jobs, then its runner started), and commit-to-receipt p50/p99 at RATE
// events/s for SECONDS s (ours: a delivery row and the outbox's NOTIFY a commit; graphile-worker:
// graphile_worker.add_job a commit, whose NOTIFY wakes its workers). graphile-worker runs with the
// concurrency of our sender at one host (PLATFORM_SENDER_PER_HOST=4) and, as a second line, with
// its default 10. Goals: ours at least 1.5x its deliveries/s and a lower p99.
// Quick runs: BENCH_QUEUE_EVENTS=2000 BENCH_QUEUE_SECONDS=3 BENCH_QUEUE_ROUNDS=1 BENCH_NO_README=1.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDb, migrate } from '@platform/db';
import pg from 'pg';
import { writeResults } from '../lib/harness.mjs';
import {
  askChild,
  body,
  buildSender,
  clock,
  database,
  drain,
  median,
  outboxCommit,
  PER_HOST,
  receiptRate,
  startReceiver,
  startSender,
  steadyLatency,
  storeWithSubscriptions,
  TOPIC,
  VERSION,
} from './fixtures.mjs';
import { cpuMs } from './processes.mjs';
import { forkWithParent } from '@platform/test-process';

const EVENTS = Number(process.env.BENCH_QUEUE_EVENTS ?? 10000);
const RATE = Number(process.env.BENCH_QUEUE_RATE ?? 500);
const SECONDS = Number(process.env.BENCH_QUEUE_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_QUEUE_ROUNDS ?? 3);
const WARM = Math.min(EVENTS, 2000);
// Our sender's open requests at one host, then graphile-worker's default.
const CONCURRENCIES = [PER_HOST, 10];
const here = dirname(fileURLToPath(import.meta.url));
const GW_VERSION = createRequire(import.meta.url)('graphile-worker/package.json').version;
const loadStart = loadavg();

// EVENTS jobs in one statement (one transaction): the payload is the address, the body and the
// event's id; run_at, attempts and the rest are graphile-worker's defaults (25 attempts).
const ADD_JOBS = `SELECT count(*) FROM graphile_worker.add_jobs(ARRAY(
  SELECT ROW('deliver', json_build_object('url', $1::text, 'body', b, 'webhookId', id), NULL, NULL, NULL, NULL, NULL, NULL)::graphile_worker.job_spec
  FROM unnest($2::text[], $3::text[]) AS t(b, id)))`;

/**
 * graphile-worker.mjs in its own process, its schema migrated; `start(concurrency)` / `stop()` its
 * runner. `onCrash` runs if it exits unasked (the bench would otherwise wait for it forever).
 */
async function startQueueWorker(url, secret, onCrash) {
  const child = forkWithParent(join(here, 'graphile-worker.mjs'), [], {
    env: { ...process.env, DATABASE_URL: url, QUEUE_SECRET: secret, QUEUE_TOPIC: TOPIC, QUEUE_VERSION: VERSION },
  });
  let exiting = false;
  child.once('exit', (code) => exiting || onCrash(code));
  await new Promise((resolve) => child.once('message', resolve));
  return {
    pid: child.pid,
    start: (concurrency) => askChild(child, { type: 'start', concurrency }),
    stop: () => askChild(child, { type: 'stop' }),
    exit: () =>
      new Promise((r) => {
        exiting = true;
        child.once('exit', r);
        child.send({ type: 'exit' });
      }),
  };
}

/** `n` jobs added at once, then the runner started: deliveries/s until the last receipt, and CPU µs a delivery of its process. */
async function drainQueue(sql, worker, receiver, n, concurrency) {
  const ids = Array.from({ length: n }, () => randomUUID());
  const target = (await receiver.count()) + n;
  await sql.query(ADD_JOBS, [`${receiver.url}/queue/`, ids.map((_, i) => body(i)), ids]);
  const cpu0 = cpuMs(worker.pid);
  const t0 = clock();
  await worker.start(concurrency);
  const rate = await receiptRate(receiver, ids, target, t0);
  const cpuUs = ((cpuMs(worker.pid) - cpu0) * 1000) / n;
  await worker.stop();
  return { rate, cpuUs };
}

/** Our sender draining `n` for one subscription (fixtures' drain), with CPU µs a delivery of its process. */
async function drainOurs(db, receiver, sender, fixture, n) {
  const cpu0 = cpuMs(sender.child.pid);
  const { rate } = await drain(db, receiver, fixture, n);
  return { rate, cpuUs: ((cpuMs(sender.child.pid) - cpu0) * 1000) / n };
}

buildSender();
console.log(`bench/webhooks/queue: our sender against graphile-worker ${GW_VERSION} on PostgreSQL...`);
const dbInfo = await database('postgresql');
await migrate(dbInfo.url);
const db = createDb(dbInfo.url);
const sql = new pg.Client({ connectionString: dbInfo.url });
await sql.connect();
const receiver = await startReceiver();
const one = await storeWithSubscriptions(db, 'one', receiver.url, 1);
const sender = startSender(dbInfo.url);
const worker = await startQueueWorker(dbInfo.url, one.secret, async (code) => {
  console.error(`bench/webhooks/queue: graphile-worker.mjs exited (${code}); stopping`);
  await sender.stop();
  await receiver.close();
  await dbInfo.drop();
  process.exit(1);
});

// Warm-up of both (the JIT, the connections, the tables' first pages), then ROUNDS rounds, ours
// first in one round and last in the next (a shared machine's neighbours come and go within a
// minute; whatever the previous drain leaves to vacuum falls on each side in turn): the median
// round of each is reported, and the median of the rounds' ratios.
await drainOurs(db, receiver, sender, one, WARM);
await drainQueue(sql, worker, receiver, WARM, PER_HOST);
const rounds = [];
for (let r = 0; r < ROUNDS; r++) {
  const round = { queue: [] };
  if (r % 2 === 0) round.ours = await drainOurs(db, receiver, sender, one, EVENTS);
  for (const c of CONCURRENCIES) round.queue.push(await drainQueue(sql, worker, receiver, EVENTS, c));
  if (r % 2 === 1) round.ours = await drainOurs(db, receiver, sender, one, EVENTS);
  rounds.push(round);
  console.log(
    `round ${r + 1}: ours ${round.ours.rate.toFixed(0)}/s, graphile-worker ${round.queue.map((q) => q.rate.toFixed(0)).join(' / ')}/s`,
  );
}

// Commit-to-receipt at RATE events/s: ours (its outbox row and NOTIFY a commit) and graphile-worker
// at each concurrency (add_job a commit), the others idle meanwhile; ROUNDS rounds, the order
// turning by one each round (one run's p99 at load 5 to 9 moved with whatever ran beside it), the
// median round of each reported.
const addJob = async (i) => {
  const webhookId = randomUUID();
  const payload = { url: `${receiver.url}/queue/`, body: body(i), webhookId };
  await sql.query("SELECT graphile_worker.add_job('deliver', $1::json)", [JSON.stringify(payload)]);
  return webhookId;
};
const sides = [{ commit: outboxCommit(db, one) }, ...CONCURRENCIES.map((concurrency) => ({ concurrency, commit: addJob }))];
const latencyRounds = [];
for (let r = 0; r < ROUNDS; r++) {
  const got = [];
  for (let k = 0; k < sides.length; k++) {
    const s = (k + r) % sides.length;
    if (sides[s].concurrency) await worker.start(sides[s].concurrency);
    got[s] = await steadyLatency(receiver, sides[s].commit, RATE, SECONDS);
    if (sides[s].concurrency) await worker.stop();
  }
  latencyRounds.push(got);
}
const latency = sides.map((_, s) => {
  const of = (f) => median(latencyRounds.map((got) => f(got[s])));
  return {
    p50: of((l) => l.p50),
    p99: of((l) => l.p99),
    max: of((l) => l.max),
    offered: of((l) => l.offered),
    p99s: latencyRounds.map((got) => got[s].p99.toFixed(1)).join(' / '),
  };
});

await worker.exit();
await sender.stop();
await receiver.close();
await sql.end();
await db.close();
await dbInfo.drop();

const mid = (f) => median(rounds.map(f));
const ours = { rate: mid((x) => x.ours.rate), cpuUs: mid((x) => x.ours.cpuUs), ...latency[0] };
const queue = CONCURRENCIES.map((c, k) => ({
  concurrency: c,
  rate: mid((x) => x.queue[k].rate),
  cpuUs: mid((x) => x.queue[k].cpuUs),
  ratio: mid((x) => x.ours.rate / x.queue[k].rate),
  perRound: rounds.map((x) => `${(x.ours.rate / x.queue[k].rate).toFixed(2)}x`).join(' / '),
  ...latency[k + 1],
}));
const ms = (x) => `${x.toFixed(1)} ms`;
const met = (ok) => (ok ? 'met' : '**not met**');
const load = (l) => l.map((x) => x.toFixed(2)).join(' ');
const perRound = (f) => rounds.map((x) => f(x).toFixed(0)).join(' / ');
const cpu = cpus()[0]?.model?.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
const row = (name, x, rate, ratio) =>
  `| ${name} | ${x.rate.toFixed(0)} (${rate}) | ${ratio} | ${x.cpuUs.toFixed(0)} µs | ${ms(x.p50)} | ${ms(x.p99)} (${x.p99s}) | ${ms(x.max)} | ${x.offered.toFixed(0)}/s |`;
const lines = [
  `Run ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')} on ${cpus().length} cores (${cpu}), Node ${process.version}, PostgreSQL (one database for both), load average ${load(loadStart)} at the start and ${load(loadavg())} at the end (1, 5, 15 min; a shared machine). ` +
    `Our sender (apps/webhooks, default settings, PLATFORM_SENDER_PER_HOST=${PER_HOST}, one subscription) against graphile-worker ${GW_VERSION} (library mode, one job per event, a task POSTing the signed body with undici's keep-alive Agent and throwing on a non-2xx answer so that graphile-worker retries), each a process of its own, to the same receiver process. ` +
    `Throughput: ${EVENTS} due events drained, ${ROUNDS} round${ROUNDS === 1 ? '' : 's'} after a warm-up of ${WARM} each; the median round (each round's in brackets), the ratio the median of the rounds' ratios. ` +
    `Latency: ${RATE} events/s offered for ${SECONDS} s, each event committed on its own, ${ROUNDS} round${ROUNDS === 1 ? '' : 's'} in turning order; the median round of each figure (each round's p99 in brackets). CPU: the process's own (the sender, or graphile-worker's) per delivery while draining; PostgreSQL's is not counted.`,
  '',
  '| Sender | Deliveries/s draining (rounds) | Ours / it | CPU per delivery | Commit-to-receipt p50 | p99 (rounds) | max | Offered |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
  row(
    `Our sender (${PER_HOST} open per host)`,
    ours,
    perRound((x) => x.ours.rate),
    '1.00x',
  ),
  ...queue.map((q, k) =>
    row(
      `graphile-worker, concurrency ${q.concurrency}${q.concurrency === PER_HOST ? " (our sender's per host)" : ' (its default)'}`,
      q,
      perRound((x) => x.queue[k].rate),
      `${q.ratio.toFixed(2)}x (${q.perRound})`,
    ),
  ),
  '',
  ...queue.map(
    (q) =>
      `**Goals against graphile-worker at concurrency ${q.concurrency}:** ours >= 1.5x graphile-worker's deliveries/s: ${met(q.ratio >= 1.5)} (${q.ratio.toFixed(2)}x); ` +
      `ours p99 < graphile-worker's p99: ${met(ours.p99 < q.p99)} (${ms(ours.p99)} against ${ms(q.p99)}).`,
  ),
  '',
  "What graphile-worker does not have and our sender keeps in these figures: per-host and per-app caps across senders, fairness between apps, retries on the platform's schedule (decisions §11.4-§11.7; docs/webhooks-sender.md).",
];
writeResults('webhooks-queue', lines.join('\n'));
