#!/usr/bin/env node
// bench/rules: checks per second of compiled metafield validators (`compileValidator` from
// @platform/domain, dist) on representative definitions (scenarios.mjs), beside Ajv validating the
// equivalent JSON Schema on the same inputs in the same process. `pnpm bench` runs it after
// bench/listing; alone: `pnpm --filter @platform/bench run bench:rules` (or `node rules/run.mjs` in
// bench/). Needs a built @platform/domain (`pnpm --filter @platform/domain build`).
// It measures BENCH_RUNS times (3), each in a process of its own: V8 compiles each process's hot
// code its own way, and the machine is shared, so the spread between runs is reported too.
// Results: bench/results/rules.md.
import domain from '@platform/domain';
import AjvModule from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { RE2JS } from 're2js';
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { writeResults } from '../lib/harness.mjs';
import { INPUTS, SCENARIOS, VALID_SHARE } from './scenarios.mjs';

const { compileValidator } = domain;
const Ajv2020 = AjvModule.default ?? AjvModule;
const addFormats = formatsModule.default ?? formatsModule;

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 11);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 100);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 300);
const CTX = Object.freeze({ version: 'v20260901' });
// For profiling (`node --cpu-prof`): BENCH_ONLY=2 runs the third scenario alone, BENCH_SIDE=ours
// (ajv, ajv-re2, ours-parsed, ajv-parsed) times one side only; one run, and nothing is written then.
const ONLY = process.env.BENCH_ONLY === undefined ? undefined : Number(process.env.BENCH_ONLY);
const SIDE = process.env.BENCH_SIDE;
/** Set in the processes the first one starts: they measure once and print their results as JSON. */
const CHILD = process.env.BENCH_CHILD === '1';

// --- Ajv, with the options the engine gave it before it read values into records (see the report). ---

const RE2_ENGINE = Object.assign(
  (pattern, flags) => {
    const re = RE2JS.compile(RE2JS.translateRegExp(pattern));
    return { test: (s) => re.test(s), toString: () => `/${pattern}/${flags}` };
  },
  { code: 're2js' },
);

function ajv(engine, extra = {}) {
  const options = {
    strict: false,
    logger: false,
    allErrors: false,
    $data: false,
    ownProperties: true,
    addUsedSchema: false,
    code: { optimize: false, ...(engine === 're2js' ? { regExp: RE2_ENGINE } : {}) },
    ...extra,
  };
  const instance = new Ajv2020(options);
  addFormats(instance, { mode: 'full' });
  return instance;
}

// --- Checking and timing. ---

const RUNNERS = {
  // Separate function objects per side (new Function) so no side inherits another's type feedback.
  ours: 'let ok = 0; for (let k = 0; k < iters; k++) for (let i = 0; i < inputs.length; i++) if (check(inputs[i], ctx).ok === true) ok++; return ok;',
  string:
    'let ok = 0; for (let k = 0; k < iters; k++) for (let i = 0; i < inputs.length; i++) if (check(inputs[i]) === true) ok++; return ok;',
  json: 'let ok = 0; for (let k = 0; k < iters; k++) for (let i = 0; i < inputs.length; i++) { let data; try { data = JSON.parse(inputs[i]); } catch { continue; } if (check(data) === true) ok++; } return ok;',
};
const runner = (kind) => new Function('check', 'inputs', 'iters', 'ctx', RUNNERS[kind]);

function verdict(side, raw) {
  if (side.kind === 'ours') return side.check(raw, CTX).ok === true;
  if (side.kind === 'string') return side.check(raw) === true;
  let data;
  try {
    data = JSON.parse(raw);
  } catch {
    return false;
  }
  return side.check(data) === true;
}

// CPU time of this process (user and system, every thread: the collector's too), not the clock:
// on the shared machine a process waits for a core for a good part of a round, at random, and the
// clock would count that wait as the check's.
function time(side, iters) {
  const start = process.cpuUsage();
  side.sink += side.run(side.check, side.inputs, iters, CTX);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

const parses = (raw) => {
  try {
    JSON.parse(raw);
    return true;
  } catch {
    return false;
  }
};
const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
// Half the interquartile range, relative to the median: robust to one round that met a busy moment.
const spread = (xs) => {
  const s = sorted(xs);
  return (s[Math.floor((3 * s.length) / 4)] - s[Math.floor(s.length / 4)]) / 2 / median(xs);
};

/** One measurement of every scenario (or of BENCH_ONLY), in this process. */
function measure() {
  const results = [];
  const began = Date.now();
  const loadBefore = loadavg()[0];
  // Every scenario's inputs are drawn, in order, even when only one runs: the same seed, the same text.
  const INPUT_SETS = new Map(SCENARIOS.map((s) => [s, s.inputs()]));
  for (const [index, scenario] of SCENARIOS.entries()) {
    if (ONLY !== undefined && index !== ONLY) continue;
    const inputs = INPUT_SETS.get(scenario);
    const ours = compileValidator(scenario.definition);
    const theirs = ajv('js', scenario.ajvOptions).compile(scenario.schema);
    const sides = [
      { label: 'ours', kind: 'ours', check: ours, inputs },
      { label: 'ajv', kind: scenario.ajvInput, check: theirs, inputs },
    ];
    if (scenario.patterns)
      sides.push({ label: 'ajv-re2', kind: scenario.ajvInput, check: ajv('re2js', scenario.ajvOptions).compile(scenario.schema), inputs });

    // Both sides must agree on every timed input, and the documented differences must still hold.
    let valid = 0;
    for (const raw of inputs) {
      const verdicts = sides.map((s) => verdict(s, raw));
      if (verdicts.some((v) => v !== verdicts[0])) {
        console.error(
          `${scenario.name}: sides disagree on ${JSON.stringify(raw)}: ${sides.map((s, i) => `${s.label}=${verdicts[i]}`).join(' ')}`,
        );
        process.exit(1);
      }
      if (verdicts[0]) valid++;
    }
    for (const d of scenario.differences) {
      const got = sides.map((s) => verdict(s, d.raw));
      if (got[0] !== d.ours || got.slice(1).some((v) => v !== d.ajv)) {
        console.error(`${scenario.name}: documented difference no longer holds for ${JSON.stringify(d.raw)}: ${got.join(' ')}`);
        process.exit(1);
      }
    }
    // Where some inputs are not JSON, JSON.parse throws on them, and a thrown exception costs V8
    // microseconds: both sides are timed again on the inputs that parse, to show how much that weighs.
    const parseable = scenario.ajvInput === 'json' ? inputs.filter(parses) : inputs;
    if (parseable.length < inputs.length) {
      sides.push({ label: 'ours-parsed', kind: 'ours', check: ours, inputs: parseable });
      sides.push({ label: 'ajv-parsed', kind: scenario.ajvInput, check: theirs, inputs: parseable });
    }

    if (SIDE !== undefined) sides.splice(0, sides.length, ...sides.filter((s) => s.label === SIDE));
    for (const side of sides) {
      Object.assign(side, { run: runner(side.kind), sink: 0, rates: [] });
      const until = Date.now() + WARMUP_MS;
      let once = 0;
      while (Date.now() < until) once = time(side, 1);
      side.iters = Math.max(1, Math.round(ROUND_MS / 1000 / once));
    }
    // Rounds interleave the sides, so a busy moment on the shared machine hits all of them alike.
    for (let r = 0; r < ROUNDS; r++) {
      for (const side of sides) side.rates.push((side.iters * side.inputs.length) / time(side, side.iters));
    }
    const row = { index, valid, total: inputs.length, notJson: inputs.length - parseable.length, sides: {} };
    for (const side of sides) row.sides[side.label] = { rate: median(side.rates), spread: spread(side.rates) };
    results.push(row);
    const show = sides.map((s) => `${s.label} ${(row.sides[s.label].rate / 1e6).toFixed(2)} M/s`).join(', ');
    console.error(`${scenario.name}: ${show}`);
  }
  return { results, seconds: (Date.now() - began) / 1000, load: [loadBefore, loadavg()[0]] };
}

/** RUNS measurements, each in a process of its own (this script, BENCH_CHILD=1), one after the other. */
function measureInProcesses() {
  const runs = [];
  for (let k = 0; k < RUNS; k++) {
    console.error(`run ${k + 1} of ${RUNS}`);
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], {
      env: { ...process.env, BENCH_CHILD: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    if (child.status !== 0) process.exit(child.status ?? 1);
    runs.push(JSON.parse(child.stdout));
  }
  return runs;
}

// --- Report. ---

const fixed2 = (x) => x.toFixed(2);
const rate = (r) => (r === undefined ? 'n/a' : `${(r.rate / 1e6).toFixed(2)} M ±${Math.round(100 * r.spread)}%`);

/** A side's cell over the runs: the median of the runs' medians, ± the median of their spreads. */
function cell(rows, label) {
  const seen = rows.map((row) => row.sides[label]).filter((s) => s !== undefined);
  return seen.length === 0 ? undefined : { rate: median(seen.map((s) => s.rate)), spread: median(seen.map((s) => s.spread)) };
}

/** Each run's ratio of two sides (those timed in the same rounds of one process). */
function ratios(rows, a, b) {
  return rows.filter((row) => row.sides[a] !== undefined && row.sides[b] !== undefined).map((row) => row.sides[a].rate / row.sides[b].rate);
}

/** The median run's ratio, then the lowest and the highest. */
function ratioText(xs) {
  if (xs.length === 0) return 'n/a';
  if (xs.length === 1) return `${fixed2(xs[0])}x`;
  return `${fixed2(median(xs))}x (${fixed2(Math.min(...xs))}-${fixed2(Math.max(...xs))})`;
}

function metIn(xs) {
  const met = xs.filter((x) => x >= 1).length;
  return met === xs.length ? (xs.length === 1 ? 'met' : `met in all ${xs.length} runs`) : `met in ${met} of ${xs.length} runs`;
}

function report(runs) {
  const rowsOf = (index) => runs.map((run) => run.results.find((row) => row.index === index)).filter((row) => row !== undefined);
  const indexes = runs[0].results.map((row) => row.index);
  const loads = runs.flatMap((run) => run.load);
  const seconds = runs.reduce((sum, run) => sum + run.seconds, 0);
  const lines = [
    `Run ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}, on a shared machine ` +
      `(other work was running: load average ${fixed2(Math.min(...loads))} to ${fixed2(Math.max(...loads))} over one minute, measured at the start and end of each run; ` +
      `absolute numbers move between runs, the ratios, timed in the same rounds, much less). ` +
      `${runs.length} run${runs.length === 1 ? '' : 's'}, each in a process of its own; in each, ${INPUTS.toLocaleString('en-US')} fixed inputs per scenario (${Math.round(VALID_SHARE * 100)}% generated valid), ` +
      `the same verdict from every side checked before timing, and checks per second of CPU time (this process's, user and system: the time it waits for a core is not counted) the median of ${ROUNDS} interleaved rounds of about ${ROUND_MS} ms of it after ${WARMUP_MS} ms of warm-up. ` +
      `A cell is the median over the runs (± the median half interquartile range within a run); a ratio is the median run's, with the lowest and the highest run in parentheses; M = million. Total ${seconds.toFixed(0)} s.`,
    '',
    '| Scenario | Valid | Ours, checks/s | Ajv (JS RegExp) | Ajv (re2js) | Ours / Ajv | Ours / Ajv (re2js) | Ours / Ajv, inputs that parse as JSON |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const index of indexes) {
    const s = SCENARIOS[index];
    const rows = rowsOf(index);
    const first = rows[0];
    const subset =
      first.notJson > 0 ? `${ratioText(ratios(rows, 'ours-parsed', 'ajv-parsed'))}, ${first.total - first.notJson} inputs` : 'n/a';
    lines.push(
      `| ${s.name} | ${first.valid}/${first.total} | ${rate(cell(rows, 'ours'))} | ${rate(cell(rows, 'ajv'))} | ${s.patterns ? rate(cell(rows, 'ajv-re2')) : 'n/a (no pattern)'} | ` +
        `**${ratioText(ratios(rows, 'ours', 'ajv'))}** | ${s.patterns ? ratioText(ratios(rows, 'ours', 'ajv-re2')) : 'n/a'} | ${subset} |`,
    );
  }
  lines.push('', 'What each side does (every timed check starts from the same text):', '');
  for (const index of indexes) {
    const s = SCENARIOS[index];
    const first = rowsOf(index)[0];
    lines.push(`- **${s.name}.** Ours: ${s.ours}. Ajv: ${s.theirs}.`);
    if (first.notJson > 0) {
      lines.push(
        `  ${first.notJson} of the inputs are not JSON: Ajv's JSON.parse throws on them${s.definition.type === 'json' ? '; ours reads them without an exception' : ''}; the last column times both sides without them.`,
      );
    }
    if (s.differences.length > 0) {
      lines.push(
        `  Documented differences (checked every run, not timed): ${s.differences.map((d) => `\`${d.raw}\` ours ${d.ours ? 'valid' : 'invalid'}, Ajv ${d.ajv ? 'valid' : 'invalid'} (${d.why})`).join('; ')}.`,
      );
    }
  }
  lines.push(
    '- Ajv 8 (2020-12) with the options the engine gave it before it read json values into records (`strict: false`, `allErrors: false`, `$data: false`, `ownProperties: true`, `code.optimize: false`, ajv-formats full), each schema compiled once, outside the timed loop. ' +
      "The engine now reads a json value into objects that inherit nothing and runs Ajv with `ownProperties` off; Ajv's side keeps it on, since its values are JSON.parse's plain objects, on which a `required` property named `toString` is found without it. " +
      "ReDoS: our `regex` rule, and `pattern` in the engine's JSON Schemas, have RE2 semantics (compiled by re2js, run on the engine's lazy DFA or on re2js: linear time, no backtracking); Ajv's `pattern` runs on JS RegExp (backtracking) by default. " +
      'The "Ajv (re2js)" column is Ajv given re2js as its `code.regExp` engine, so the comparison also stands on linear-time matching.',
  );
  const goal = [];
  const regexRows = [];
  for (const index of indexes) {
    const s = SCENARIOS[index];
    const rows = rowsOf(index);
    const all = ratios(rows, 'ours', 'ajv');
    if (s.regexRow) {
      regexRows.push(
        `${s.name} (${ratioText(all)} against Ajv on JS RegExp, ${ratioText(ratios(rows, 'ours', 'ajv-re2'))} against Ajv on re2js)`,
      );
      continue;
    }
    const parsed = ratios(rows, 'ours-parsed', 'ajv-parsed');
    goal.push(
      `${s.name}: ${metIn(all)} (${ratioText(all)})${parsed.length > 0 ? `; on the inputs that parse, ${metIn(parsed)} (${ratioText(parsed)})` : ''}`,
    );
  }
  lines.push(
    '',
    `**Goal (at least as fast as Ajv on every row that is not a regular expression) in ${runs.length === 1 ? 'this run' : `these ${runs.length} runs`}:** ${goal.join('. ')}.` +
      (regexRows.length > 0
        ? ` Regular-expression rows, which stay linear-time (RE2) and are not in the goal: ${regexRows.join('; ')}.`
        : ''),
  );
  return lines.join('\n');
}

if (CHILD) {
  process.stdout.write(JSON.stringify(measure()));
} else if (ONLY !== undefined || SIDE !== undefined || RUNS <= 1) {
  const table = report([measure()]);
  if (ONLY !== undefined || SIDE !== undefined) console.log(`\n${table}\n`);
  else writeResults('rules', table);
} else {
  writeResults('rules', report(measureInProcesses()));
}
