// The tables of bench/load and its verdicts: per action (all runs of a target together), per run
// (requests, unexpected answers, event lag), memory of each API and sender process after a full GC,
// the goals with this run's verdicts, and the README's one line per target.
import { cpus, loadavg } from 'node:os';

/**
 * No memory growth: the warm-up fills the two bounded caches (compiled validators, listing pages:
 * warm-up.mjs) and run 1 what else the process keeps by design (prepared statements, JIT code,
 * connection pools, allocator arenas), so the last run is compared with the first, each measured
 * after a full GC through the process's inspector and 2 s for the allocator to give freed pages
 * back (jemalloc as deployed; a second GC then, run.mjs) (the forced settle): the retained heap may
 * not grow by more than HEAP_SLACK of run 1's (or HEAP_SLACK_MB, whichever is larger: a few MB move
 * with whatever the last requests left in caches), the resident set by no more than RSS_SLACK (it
 * also holds native memory: the SQLite page cache, malloc arenas, buffers the allocator keeps).
 */
export const HEAP_SLACK = 0.05;
export const HEAP_SLACK_MB = 4;
export const RSS_SLACK = 0.1;

const MB = 1024 * 1024;
const pct = (sorted, p) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);
const ms = (x) => (Number.isNaN(x) ? 'n/a' : x < 10 ? `${x.toFixed(1)} ms` : `${x.toFixed(0)} ms`);
const mb = (bytes) => `${(bytes / MB).toFixed(0)} MB`;
const int = (n) => Math.round(n).toLocaleString('en-US');
const escape = (s) => String(s).replace(/\|/g, '\\|');
const SHORT = { sqlite: 'SQLite', postgresql: 'PostgreSQL', cluster: 'Cluster' };

/** The 4xx answers an action asked for (the invalid values' 422). */
const askedErrors = (s) => s.expect.filter((code) => code >= 400).reduce((n, code) => n + (s.statuses[code] ?? 0), 0);

/**
 * Commit-to-receipt lies between two measured lags (run.mjs eventLags): from the write's answer at
 * the generator (a lower bound) and from its triggered_at (an upper bound). A cell shows both.
 */
function lagCell(events, p) {
  const at = (list) => {
    const sorted = Float64Array.from(list).sort();
    return p === 100 ? (sorted[sorted.length - 1] ?? NaN) : pct(sorted, p);
  };
  return `${ms(at(events.answerLags))} .. ${ms(at(events.lags))}`;
}

function statusList(statuses) {
  return Object.entries(statuses)
    .map(([s, n]) => `${int(n)} x ${s}`)
    .join(', ');
}

/** One action over all runs of a target. */
function merged(result) {
  const byName = new Map();
  for (const run of result.runs) {
    for (const s of run.stats) {
      const m = byName.get(s.name) ?? { name: s.name, expect: s.expect, latencies: [], statuses: {}, unexpected: 0, samples: [] };
      m.latencies.push(...s.latencies);
      for (const [k, v] of Object.entries(s.statuses)) m.statuses[k] = (m.statuses[k] ?? 0) + v;
      m.unexpected += s.unexpected;
      m.samples.push(...s.samples.slice(0, 3 - m.samples.length));
      byName.set(s.name, m);
    }
  }
  const elapsed = result.runs.reduce((t, r) => t + r.elapsed, 0);
  return [...byName.values()].map((m) => {
    const sorted = Float64Array.from(m.latencies).sort();
    return { ...m, rps: m.latencies.length / elapsed, p50: pct(sorted, 50), p99: pct(sorted, 99) };
  });
}

function memoryVerdicts(result) {
  const first = result.memory[1];
  const last = result.memory[result.memory.length - 1];
  return Object.keys(first).map((name) => {
    const heapLimit = first[name].heapUsed + Math.max(HEAP_SLACK * first[name].heapUsed, HEAP_SLACK_MB * MB);
    const rssLimit = first[name].rss * (1 + RSS_SLACK);
    const ok = last[name].heapUsed <= heapLimit && last[name].rss <= rssLimit;
    return { name, ok, heapGrowth: last[name].heapUsed - first[name].heapUsed, rssGrowth: last[name].rss - first[name].rss };
  });
}

export function report(results, { seconds, connections, products, totalSeconds, allocator }) {
  const failed = [];
  const goals = [];
  const runs = results[0]?.runs.length ?? 0;
  const lines = [
    `Run ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores (${cpus()[0]?.model.replace(/\s+/g, ' ').trim()}), Node ${process.version}; ` +
      `load average ${results.map((r) => `${r.loadBefore.toFixed(1)} before ${SHORT[r.kind]}`).join(', ')}, ${loadavg()[0].toFixed(1)} at the end; total ${Math.round(totalSeconds)} s. ` +
      `${runs} runs of ${seconds} s in a row per target, ${connections} connections (closed loop: each keeps one request in flight), ${products.toLocaleString('en-US')} products, ` +
      'one app (unlimited rate-limit bucket), one subscription to inventory_items/update on a receiver that checks every signature. ' +
      `APIs and senders on ${allocator}, as deployed (deploy/with-allocator.sh). ` +
      "The load generator (one Node process, undici), the receiver, the senders and the databases share the 2 cores with the API: the generator's own CPU is in the runs table.",
    '',
    '| Action | Answers asked | ' + results.map((r) => `${SHORT[r.kind]} req/s | p50 | p99`).join(' | ') + ' |',
    '|---|---|' + results.map(() => '---:|---:|---:').join('|') + '|',
  ];
  const perTarget = results.map(merged);
  const names = [...new Set(perTarget.flatMap((list) => list.map((m) => m.name)))];
  for (const name of names) {
    const cells = perTarget.map((list) => list.find((m) => m.name === name));
    const expect = cells.find(Boolean).expect.join(' or ');
    lines.push(
      `| ${escape(name)} | ${expect} | ${cells.map((m) => (m ? `${m.rps.toFixed(1)} | ${ms(m.p50)} | ${ms(m.p99)}` : '| |')).join(' | ')} |`,
    );
  }

  lines.push(
    '',
    '| Target | Run | Requests | Requests/s | Unexpected answers | Answers (all actions) | Events written / received | Event lag p50 | p99 | max | Last event after the run | API event-loop delay max | Generator CPU | Load average after |',
    '|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const result of results) {
    const t = SHORT[result.kind];
    const sum = (f) => result.runs.reduce((n, run) => n + f(run), 0);
    const unexpectedAll = sum((run) => run.stats.reduce((n, s) => n + s.unexpected, 0));
    const asked4xx = sum((run) => run.stats.reduce((n, s) => n + askedErrors(s), 0));
    const written = sum((run) => run.events.written);
    const lost = sum((run) => run.events.lost);
    const emitted = sum((run) => run.events.emitted);
    const bad = Math.max(...result.runs.map((run) => run.events.badSignatures));
    goals.push(
      {
        target: t,
        goal: 'no answer but the ones asked (5xx, other 4xx, network errors, 4xx without {"errors"} or traceId: none)',
        measured: `${int(unexpectedAll)} unexpected; ${int(asked4xx)} asked 4xx (invalid values, 422)`,
        ok: unexpectedAll === 0,
      },
      {
        target: t,
        goal: 'every inventory update answered 200 wrote its event; every event received within 60 s, signature good',
        measured: `${int(emitted)} updates, ${int(written)} events written, ${int(written - lost)} received, ${int(bad)} bad signatures`,
        ok: emitted === written && lost === 0 && bad === 0,
      },
    );
    result.runs.forEach((run, i) => {
      const requests = run.stats.reduce((n, s) => n + s.latencies.length, 0);
      const unexpected = run.stats.reduce((n, s) => n + s.unexpected, 0);
      const statuses = {};
      for (const s of run.stats) for (const [k, v] of Object.entries(s.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
      const ev = run.events;
      const received = ev.written - ev.lost;
      lines.push(
        `| ${SHORT[result.kind]} | ${i + 1} | ${int(requests)} | ${int(requests / run.elapsed)} | ${unexpected === 0 ? '0' : `**${unexpected}**`} | ${statusList(statuses)} | ` +
          `${int(ev.written)} / ${int(received)} | ${lagCell(ev, 50)} | ${lagCell(ev, 99)} | ${lagCell(ev, 100)} | ${(ev.drainedMs / 1000).toFixed(1)} s | ` +
          `${Object.values(run.loopDelay).map(ms).join(', ')} | ${((100 * run.generatorCpu) / run.elapsed).toFixed(0)}% of a core | ${run.loadAverage.toFixed(1)} |`,
      );
      if (unexpected > 0) failed.push(`${SHORT[result.kind]} run ${i + 1}: ${unexpected} unexpected answers`);
      if (ev.lost > 0) failed.push(`${SHORT[result.kind]} run ${i + 1}: ${ev.lost} events not received within 60 s`);
      if (ev.written !== ev.emitted)
        failed.push(
          `${SHORT[result.kind]} run ${i + 1}: ${ev.emitted} inventory item updates answered 200 but ${ev.written} events written`,
        );
      if (ev.badSignatures > 0) failed.push(`${SHORT[result.kind]}: ${ev.badSignatures} deliveries with a wrong signature`);
    });
  }

  lines.push(
    '',
    '| Target | Process | ' +
      ['before run 1', ...Array.from({ length: runs }, (_, i) => `after run ${i + 1}`)].join(' | ') +
      ` | Run ${runs} - run 1 | No growth |`,
  );
  lines.push('|---|---|' + Array.from({ length: runs + 1 }, () => '---:').join('|') + '|---:|---|');
  for (const result of results) {
    for (const v of memoryVerdicts(result)) {
      const anon = (m) => (Number.isFinite(m.rssAnon) ? ` (${mb(m.rssAnon)})` : '');
      const cells = result.memory.map(
        (m) => `${mb(m[v.name].rss)}${anon(m[v.name])} / ${mb(m[v.name].heapUsed)} / ${mb(m[v.name].external)}`,
      );
      lines.push(
        `| ${SHORT[result.kind]} | ${v.name} | ${cells.join(' | ')} | ${v.rssGrowth >= 0 ? '+' : ''}${mb(v.rssGrowth)} / ${v.heapGrowth >= 0 ? '+' : ''}${mb(v.heapGrowth)} | ${v.ok ? 'yes' : '**no**'} |`,
      );
      if (!v.ok) failed.push(`${SHORT[result.kind]} ${v.name}: memory grew from run 1 to run ${runs}`);
      goals.push({
        target: SHORT[result.kind],
        goal: `${v.name}: no memory growth, run ${runs} against run 1 (criterion below)`,
        measured: `RSS ${v.rssGrowth >= 0 ? '+' : ''}${mb(v.rssGrowth)}, heap ${v.heapGrowth >= 0 ? '+' : ''}${mb(v.heapGrowth)}`,
        ok: v.ok,
      });
    }
  }
  lines.push(
    '',
    `Event lag: the commit of each event lies between two instants measured, so each cell gives two lags to its receipt at the receiver: from the write's 200 answer reaching the load generator (after the commit: a lower bound, negative when the event arrived first) .. from its triggered_at (the service clock read as the write began, before its transaction: an upper bound, which includes the wait for a connection and the transaction). "Last event after the run": how long after the run's end the last event arrived.`,
    '',
    `Memory cells: resident set (its anonymous part: V8's and malloc's heaps, SQLite's caches; the rest is mapped files) / V8 heap used / external (Buffers, the listing page cache among them), each measured after a full GC through the process's inspector and 2 s for the allocator to return freed pages. ` +
      `No growth means: after run ${runs}, heap used within ${HEAP_SLACK * 100}% (or ${HEAP_SLACK_MB} MB) and resident set within ${RSS_SLACK * 100}% of after run 1 (the warm-up fills the bounded caches, validators and listing pages, before run 1; run 1 settles the rest: JIT code, statements, pools).`,
  );

  lines.push('', '| Target | Goal | This run | |', '|---|---|---|---|');
  for (const g of goals) lines.push(`| ${g.target} | ${g.goal} | ${g.measured} | ${g.ok ? 'met' : '**not met**'} |`);

  const samples = perTarget.flatMap((list, t) => list.flatMap((m) => m.samples.map((s) => ({ target: SHORT[results[t].kind], ...s }))));
  if (samples.length > 0) {
    lines.push('', 'Unexpected answers (first few of each action):', '');
    for (const s of samples.slice(0, 20))
      lines.push(
        `- ${s.target}: \`${s.request}\` -> ${s.status} (${s.problem}), traceId ${s.traceId ?? 'none'}: \`${escape(s.body.replace(/\s+/g, ' ').slice(0, 200))}\``,
      );
  }
  lines.push('', failed.length === 0 ? '**Goals in this run: all met.**' : `**Goals in this run: not met**: ${failed.join('; ')}.`);
  return { text: lines.join('\n'), compact: compact(results, goals, lines[0]), failed };
}

/** The README's table: one line per target, the goals' verdicts, and where the full tables are. */
function compact(results, goals, header) {
  const lines = [
    header.replace(/ The load generator .*$/, ''),
    '',
    '| Target | Requests/s, runs 1-3 | p50 / p99, all requests | Unexpected answers | Asked 4xx (422s) | Event commit-to-receipt p50 / p99 (between) | Memory after run 1 -> last run (RSS / heap) | Goals |',
    '|---|---:|---:|---:|---:|---:|---|---|',
  ];
  for (const result of results) {
    const t = SHORT[result.kind];
    const all = Float64Array.from(result.runs.flatMap((run) => run.stats.flatMap((s) => s.latencies))).sort();
    const events = { lags: result.runs.flatMap((run) => run.events.lags), answerLags: result.runs.flatMap((run) => run.events.answerLags) };
    const count = (pred) => result.runs.reduce((n, run) => n + run.stats.reduce((m, s) => m + pred(s), 0), 0);
    const unexpected = count((s) => s.unexpected);
    const asked = count(askedErrors);
    const first = result.memory[1];
    const last = result.memory[result.memory.length - 1];
    const memory = Object.keys(first)
      .map((name) => `${name} ${mb(first[name].rss)} / ${mb(first[name].heapUsed)} -> ${mb(last[name].rss)} / ${mb(last[name].heapUsed)}`)
      .join('; ');
    const mine = goals.filter((g) => g.target === t);
    const verdict = mine.every((g) => g.ok)
      ? 'met'
      : `**not met**: ${mine
          .filter((g) => !g.ok)
          .map((g) => g.goal.replace(/ \(.*$/, ''))
          .join('; ')}`;
    lines.push(
      `| ${t} | ${result.runs.map((run) => int(run.stats.reduce((n, s) => n + s.latencies.length, 0) / run.elapsed)).join(', ')} | ${ms(pct(all, 50))} / ${ms(pct(all, 99))} | ${unexpected === 0 ? '0' : `**${int(unexpected)}**`} | ${int(asked)} | ${lagCell(events, 50)} / ${lagCell(events, 99)} | ${memory} | ${verdict} |`,
    );
  }
  lines.push('', 'Per action p50/p99, each run, the unexpected answers and the memory of every process: `bench/results/load.md`.');
  return lines.join('\n');
}
