// The tables of bench/load and its verdicts: per action (all runs of a target together), per run
// (requests, unexpected answers, event lag), and memory of each API process after a full GC.
import { cpus, loadavg } from 'node:os';

/**
 * No memory growth: run 1 fills what the process keeps by design (the listing page cache of
 * PLATFORM_LISTING_CACHE_MB, compiled validators, prepared statements, JIT code, connection pools),
 * so the last run is compared with the first, each measured after a full GC: the retained heap may
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

function statusList(statuses) {
  return Object.entries(statuses).map(([s, n]) => `${int(n)} x ${s}`).join(', ');
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

export function report(results, { seconds, connections, products, totalSeconds }) {
  const failed = [];
  const runs = results[0]?.runs.length ?? 0;
  const lines = [
    `Run ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores (${cpus()[0]?.model.replace(/\s+/g, ' ').trim()}), Node ${process.version}; ` +
      `load average ${results.map((r) => `${r.loadBefore.toFixed(1)} before ${SHORT[r.kind]}`).join(', ')}, ${loadavg()[0].toFixed(1)} at the end; total ${Math.round(totalSeconds)} s. ` +
      `${runs} runs of ${seconds} s in a row per target, ${connections} connections (closed loop: each keeps one request in flight), ${products.toLocaleString('en-US')} products, ` +
      'one app (unlimited rate-limit bucket), one subscription to inventory_items/update on a receiver that checks every signature. ' +
      'The load generator (one Node process, undici), the receiver, the senders and the databases share the 2 cores with the API: the generator\'s own CPU is in the runs table.',
    '',
    '| Action | Answers asked | ' + results.map((r) => `${SHORT[r.kind]} req/s | p50 | p99`).join(' | ') + ' |',
    '|---|---|' + results.map(() => '---:|---:|---:').join('|') + '|',
  ];
  const perTarget = results.map(merged);
  const names = [...new Set(perTarget.flatMap((list) => list.map((m) => m.name)))];
  for (const name of names) {
    const cells = perTarget.map((list) => list.find((m) => m.name === name));
    const expect = cells.find(Boolean).expect.join(' or ');
    lines.push(`| ${escape(name)} | ${expect} | ${cells.map((m) => (m ? `${m.rps.toFixed(1)} | ${ms(m.p50)} | ${ms(m.p99)}` : '| |')).join(' | ')} |`);
  }

  lines.push(
    '',
    '| Target | Run | Requests | Requests/s | Unexpected answers | Answers (all actions) | Events written / received | Event lag p50 | p99 | max | Last event after the run | API event-loop delay max | Generator CPU | Load average after |',
    '|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const result of results) {
    result.runs.forEach((run, i) => {
      const requests = run.stats.reduce((n, s) => n + s.latencies.length, 0);
      const unexpected = run.stats.reduce((n, s) => n + s.unexpected, 0);
      const statuses = {};
      for (const s of run.stats) for (const [k, v] of Object.entries(s.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
      const ev = run.events;
      const lags = Float64Array.from(ev.lags).sort();
      const received = ev.written - ev.lost;
      lines.push(
        `| ${SHORT[result.kind]} | ${i + 1} | ${int(requests)} | ${int(requests / run.elapsed)} | ${unexpected === 0 ? '0' : `**${unexpected}**`} | ${statusList(statuses)} | ` +
          `${int(ev.written)} / ${int(received)} | ${ms(pct(lags, 50))} | ${ms(pct(lags, 99))} | ${ms(lags[lags.length - 1] ?? NaN)} | ${(ev.drainedMs / 1000).toFixed(1)} s | ` +
          `${Object.values(run.loopDelay).map(ms).join(', ')} | ${((100 * run.generatorCpu) / run.elapsed).toFixed(0)}% of a core | ${run.loadAverage.toFixed(1)} |`,
      );
      if (unexpected > 0) failed.push(`${SHORT[result.kind]} run ${i + 1}: ${unexpected} unexpected answers`);
      if (ev.lost > 0) failed.push(`${SHORT[result.kind]} run ${i + 1}: ${ev.lost} events not received within 60 s`);
      if (ev.written !== ev.emitted) failed.push(`${SHORT[result.kind]} run ${i + 1}: ${ev.emitted} inventory item updates answered 200 but ${ev.written} events written`);
      if (ev.badSignatures > 0) failed.push(`${SHORT[result.kind]}: ${ev.badSignatures} deliveries with a wrong signature`);
    });
  }

  lines.push('', '| Target | Process | ' + ['before run 1', ...Array.from({ length: runs }, (_, i) => `after run ${i + 1}`)].join(' | ') + ` | Run ${runs} - run 1 | No growth |`);
  lines.push('|---|---|' + Array.from({ length: runs + 1 }, () => '---:').join('|') + '|---:|---|');
  for (const result of results) {
    for (const v of memoryVerdicts(result)) {
      const cells = result.memory.map((m) => `${mb(m[v.name].rss)} / ${mb(m[v.name].heapUsed)} / ${mb(m[v.name].external)}`);
      lines.push(`| ${SHORT[result.kind]} | ${v.name} | ${cells.join(' | ')} | ${v.rssGrowth >= 0 ? '+' : ''}${mb(v.rssGrowth)} / ${v.heapGrowth >= 0 ? '+' : ''}${mb(v.heapGrowth)} | ${v.ok ? 'yes' : '**no**'} |`);
      if (!v.ok) failed.push(`${SHORT[result.kind]} ${v.name}: memory grew from run 1 to run ${runs}`);
    }
  }
  lines.push(
    '',
    `Memory cells: resident set / V8 heap used / external (Buffers, the listing page cache among them), each measured after a full GC through the process's inspector. ` +
      `No growth means: after run ${runs}, heap used within ${HEAP_SLACK * 100}% (or ${HEAP_SLACK_MB} MB) and resident set within ${RSS_SLACK * 100}% of after run 1 (run 1 fills the caches the process keeps by design).`,
  );

  const samples = perTarget.flatMap((list, t) => list.flatMap((m) => m.samples.map((s) => ({ target: SHORT[results[t].kind], ...s }))));
  if (samples.length > 0) {
    lines.push('', 'Unexpected answers (first few of each action):', '');
    for (const s of samples.slice(0, 20)) lines.push(`- ${s.target}: \`${s.request}\` -> ${s.status} (${s.problem}), traceId ${s.traceId ?? 'none'}: \`${escape(s.body.replace(/\s+/g, ' ').slice(0, 200))}\``);
  }
  lines.push('', failed.length === 0 ? '**Goals in this run:** no unexpected answer, every event received with a good signature, no memory growth: **met**.' : `**Goals in this run: not met**: ${failed.join('; ')}.`);
  return { text: lines.join('\n'), failed };
}
