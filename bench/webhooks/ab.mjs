#!/usr/bin/env node
// bench/webhooks/ab.mjs: two builds of the sender side by side, for changes too small for one run
// of the benchmark to show on a shared machine (the same build measured 20% apart a few minutes
// apart there). AB_A and AB_B name each build's main.js (B defaults to this checkout's build; A is
// typically a worktree of another commit: `git worktree add /tmp/a <rev>`, then `pnpm install
// --offline` and `pnpm exec turbo run build --filter=@platform/webhooks...` in it). Each round runs
// the bare loop (its own process), then each build in a fresh process warmed by a drain of AB_WARM,
// draining BENCH_DELIVERIES for one subscription (AB_MANY=1: four); the builds' order alternates
// from round to round. AB_ARGS_A / AB_ARGS_B: node options for one side only. Prints each drain:
// deliveries/s, the ratio to its round's bare loop, and CPU per delivery (main thread, the
// others, the receiver). SQLite; PostgreSQL with AB_DATABASE_URL.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDb, migrate } from '@platform/db';
import { database, drain, median, root, sleep, startBareLoop, startReceiver, startSender, storeWithSubscriptions } from './fixtures.mjs';
import { cpuMs } from './processes.mjs';

const BACKLOG = Number(process.env.BENCH_DELIVERIES ?? 20000);
const ROUNDS = Number(process.env.AB_ROUNDS ?? 4);
const WARM = Number(process.env.AB_WARM ?? 6000);
const builds = {
  A: { main: process.env.AB_A, args: (process.env.AB_ARGS_A ?? '').split(' ').filter(Boolean) },
  B: { main: process.env.AB_B ?? join(root, 'apps/webhooks/dist/main.js'), args: (process.env.AB_ARGS_B ?? '').split(' ').filter(Boolean) },
};
if (!builds.A.main) {
  console.error('AB_A=<path of the other build main.js> is required (see the top of this file)');
  process.exit(2);
}

/** CPU of each thread of a process so far (ms), from the scheduler's counts. */
function threads(pid) {
  const out = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(tid, Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6);
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** CPU of every process of this machine's PostgreSQL server so far (ms): 0 when none runs here. */
function postgresMs() {
  let ms = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') ms += cpuMs(pid);
    } catch {
      // the process ended meanwhile
    }
  }
  return ms;
}

const kind = process.env.AB_DATABASE_URL ? 'postgresql' : 'sqlite';
if (kind === 'postgresql') process.env.BENCH_DATABASE_URL = process.env.AB_DATABASE_URL;
const dbInfo = await database(kind);
await migrate(dbInfo.url);
const db = createDb(dbInfo.url);
// AB_SQL: statements run on the database after its migrations (`;`-separated), to measure a schema change before writing its migration.
for (const statement of (process.env.AB_SQL ?? '')
  .split(';')
  .map((x) => x.trim())
  .filter(Boolean))
  await db.query(statement, []);
const receiver = await startReceiver();
const fixture = await storeWithSubscriptions(db, 'ab', receiver.url, process.env.AB_MANY ? 4 : 1);
// Bodies for the bare loop: a drain by build B.
let sender = startSender(dbInfo.url, builds.B.main, builds.B.args);
await sleep(500);
const bodies = (await drain(db, receiver, fixture, BACKLOG)).bodies;
await sender.stop();
const bare = await startBareLoop(receiver, bodies, fixture.secret);
const seen = { A: [], B: [] };
for (let r = 0; r < ROUNDS; r++) {
  const bareRun = await bare.loop('request');
  for (const side of r % 2 === 0 ? ['A', 'B'] : ['B', 'A']) {
    sender = startSender(dbInfo.url, builds[side].main, builds[side].args);
    await sleep(500);
    await drain(db, receiver, fixture, WARM);
    const pid = sender.child.pid;
    const t0 = threads(pid);
    const r0 = cpuMs(receiver.pid);
    const p0 = postgresMs();
    const run = await drain(db, receiver, fixture, BACKLOG);
    const t1 = threads(pid);
    const p1 = postgresMs();
    const per = (ms) => Math.round((ms * 1000 * 10) / BACKLOG) / 10;
    const mainTid = String(pid);
    const others = [...t1.keys()].filter((tid) => tid !== mainTid);
    const row = {
      round: r + 1,
      rate: Math.round(run.rate),
      ratio: Number((run.rate / bareRun.rate).toFixed(2)),
      mainUs: per(t1.get(mainTid) - (t0.get(mainTid) ?? 0)),
      otherThreadsUs: per(others.reduce((n, tid) => n + t1.get(tid) - (t0.get(tid) ?? 0), 0)),
      receiverUs: per(cpuMs(receiver.pid) - r0),
      postgresUs: kind === 'postgresql' ? per(p1 - p0) : undefined,
      bare: Math.round(bareRun.rate),
    };
    seen[side].push(row);
    console.log(side, JSON.stringify(row));
    await sender.stop();
  }
}
await bare.stop();
for (const side of ['A', 'B'])
  console.log(
    `${side}: median ${median(seen[side].map((x) => x.rate))} deliveries/s, ratio ${median(seen[side].map((x) => x.ratio))}, main thread ${median(seen[side].map((x) => x.mainUs))} µs a delivery (${builds[side].main})`,
  );
if (kind === 'postgresql' && process.env.AB_STATS)
  console.log(
    await db.query(
      `SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del, pg_relation_size(relid) AS bytes FROM pg_stat_user_tables WHERE relname LIKE 'webhook%' ORDER BY relname`,
      [],
    ),
  );
await receiver.close();
await db.close();
await dbInfo.drop();
