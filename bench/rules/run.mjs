#!/usr/bin/env node
// bench/rules: checks per second of compiled metafield validators (`compileValidator` from
// @platform/domain, dist) on representative definitions, beside Ajv validating the equivalent JSON
// Schema on the same inputs in the same run. `pnpm bench` runs it after bench/listing; alone:
// `pnpm --filter @platform/bench run bench:rules` (or `node rules/run.mjs` in bench/). Needs a built @platform/domain (`pnpm --filter @platform/domain build`).
// Results: bench/results/rules.md and the README (between the bench:rules markers).
import domain from '@platform/domain';
import AjvModule from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { RE2JS } from 're2js';
import { cpus } from 'node:os';
import { writeResults } from '../lib/harness.mjs';

const { compileValidator } = domain;
const Ajv2020 = AjvModule.default ?? AjvModule;
const addFormats = formatsModule.default ?? formatsModule;

const INPUTS = Number(process.env.BENCH_INPUTS ?? 1000);
const VALID_SHARE = 0.8;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 11);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 100);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 300);
const CTX = Object.freeze({ version: 'v20260901' });
// For profiling (`node --cpu-prof`): BENCH_ONLY=2 runs the third scenario alone, BENCH_SIDE=ours
// (ajv, ajv-re2, ours-parsed, ajv-parsed) times one side only; nothing is written then.
const ONLY = process.env.BENCH_ONLY === undefined ? undefined : Number(process.env.BENCH_ONLY);
const SIDE = process.env.BENCH_SIDE;

// --- Inputs: a fixed, seeded generator so every run checks the same text. ---

function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(20260901);
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = (list) => list[Math.floor(rand() * list.length)];
const letters = (n) => Array.from({ length: n }, () => String.fromCharCode(65 + int(0, 25))).join('');
const digits = (n) => Array.from({ length: n }, () => String(int(0, 9))).join('');

/** `count` inputs, VALID_SHARE from `valid()`, the rest from `invalid()`, shuffled. */
function mix(valid, invalid) {
  const out = [];
  const validCount = Math.round(INPUTS * VALID_SHARE);
  for (let i = 0; i < validCount; i++) out.push(valid());
  for (let i = validCount; i < INPUTS; i++) out.push(invalid());
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// --- Ajv as the engine configures it (packages/domain/src/metafields/compile-schema.ts). ---

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

// --- Scenarios. ---

const CHOICES = (() => {
  const set = new Set();
  while (set.size < 40) set.add(`${letters(int(2, 4))}-${digits(int(3, 6))}`);
  return [...set];
})();
const CODE = '^[A-Z]{2,4}-[0-9]{3,6}$';

const WEIGHT_UNITS = { g: 1, kg: 1000, lb: 453.59237, oz: 28.349523125 };
const WEIGHT_MIN_G = 100; // {"value":"100","unit":"g"}
const WEIGHT_MAX_G = 50 * 453.59237; // {"value":"50","unit":"lb"} = 22679.6185 g

const WORDS = ['cotton', 'linen', 'wool', 'summer', 'winter', 'sale', 'new', 'organic', 'recycled', 'gift', 'kids', 'outdoor', 'indoor', 'classic', 'limited', 'eco'];
const PRODUCT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['sku', 'title', 'price', 'dimensions', 'tags'],
  properties: {
    sku: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' },
    title: { type: 'string', minLength: 1, maxLength: 80 },
    price: { type: 'number', minimum: 0, exclusiveMaximum: 100000 },
    dimensions: {
      type: 'object',
      additionalProperties: false,
      required: ['w', 'h', 'd'],
      properties: { w: { type: 'number', minimum: 0 }, h: { type: 'number', minimum: 0 }, d: { type: 'number', minimum: 0 } },
    },
    tags: { type: 'array', maxItems: 8, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 24 } },
    color: { enum: ['red', 'green', 'blue', 'black', 'white'] },
    released: { type: 'string', format: 'date' },
  },
};

function decimalText(lo, hi, maxFraction) {
  const fraction = int(0, maxFraction);
  const n = lo + rand() * (hi - lo);
  return n.toFixed(fraction).replace(/^-0(\.0*)?$/, '0$1');
}

function product() {
  const tags = [...new Set(Array.from({ length: int(0, 6) }, () => pick(WORDS)))];
  const p = {
    sku: `${letters(3)}-${digits(4)}`,
    title: `${pick(WORDS)} ${pick(WORDS)} shirt`,
    price: Number((rand() * 500).toFixed(2)),
    dimensions: { w: int(1, 80), h: int(1, 120), d: Number((rand() * 10).toFixed(1)) },
    tags,
  };
  if (rand() < 0.5) p.color = pick(['red', 'green', 'blue', 'black', 'white']);
  if (rand() < 0.5) p.released = `20${int(10, 29)}-${String(int(1, 12)).padStart(2, '0')}-${String(int(1, 28)).padStart(2, '0')}`;
  return p;
}

function weightElement(inRange = true) {
  const unit = pick(Object.keys(WEIGHT_UNITS));
  const f = WEIGHT_UNITS[unit];
  const [lo, hi] = inRange ? [WEIGHT_MIN_G / f, WEIGHT_MAX_G / f] : pick([[0, (WEIGHT_MIN_G / f) * 0.95], [(WEIGHT_MAX_G / f) * 1.05, (WEIGHT_MAX_G / f) * 2]]);
  // Never within a millionth of a bound: the schema's bounds in lb and oz are doubles (documented).
  for (;;) {
    const text = decimalText(lo, hi, 3);
    const g = Number(text) * f;
    const near = Math.abs(g - WEIGHT_MIN_G) < 1e-6 * WEIGHT_MIN_G || Math.abs(g - WEIGHT_MAX_G) < 1e-6 * WEIGHT_MAX_G;
    if (!near && (inRange ? g >= WEIGHT_MIN_G && g <= WEIGHT_MAX_G : g < WEIGHT_MIN_G || g > WEIGHT_MAX_G)) return { value: Number(text), unit, text };
  }
}
const weightJson = (e) => `{"value":${e.text},"unit":"${e.unit}"}`;
const weightList = (n) => Array.from({ length: n }, () => weightElement());

const SCENARIOS = [
  {
    name: 'Text: regex and choices',
    definition: {
      type: 'single_line_text_field',
      validations: [
        { name: 'regex', value: CODE },
        { name: 'choices', value: JSON.stringify(CHOICES) },
      ],
    },
    schema: { type: 'string', pattern: CODE, enum: CHOICES },
    ajvInput: 'string',
    patterns: true,
    inputs: () =>
      mix(
        () => pick(CHOICES),
        () =>
          pick([
            () => `${letters(3)}-${digits(5)}`, // matches the regex, not a choice
            () => pick(CHOICES).toLowerCase(),
            () => `${pick(CHOICES)} `,
            () => `${pick(CHOICES)}\n`,
            () => `${letters(1)}${digits(8)}`,
          ])(),
      ),
    ours:
      'single_line_text_field (no line break, size in UTF-8 bytes); regex `^[A-Z]{2,4}-[0-9]{3,6}$` with RE2 semantics (compiled by re2js, run on the engine\'s DFA); choices (40 codes). The engine keeps the regex verdict of each choice once taken, so a value that is a choice is searched once',
    theirs: '`{type: "string", pattern, enum: [40 codes]}` on the raw text as a JS string (nothing to parse)',
    differences: [],
  },
  {
    name: 'Text: regex only',
    definition: { type: 'single_line_text_field', validations: [{ name: 'regex', value: CODE }] },
    schema: { type: 'string', pattern: CODE },
    ajvInput: 'string',
    patterns: true,
    inputs: () =>
      mix(
        () => `${letters(int(2, 4))}-${digits(int(3, 6))}`,
        () =>
          pick([
            () => `${letters(int(2, 4))}-${digits(int(3, 6))}`.toLowerCase(),
            () => `${letters(2)}-${digits(7)}`,
            () => `${letters(3)}-${digits(4)} `,
            () => `${letters(3)}-${digits(4)}\n`,
            () => `${letters(1)}${digits(8)}`,
          ])(),
      ),
    ours: 'the same type and regex without choices: every value runs RE2 (the row that shows the regular-expression engines)',
    theirs: '`{type: "string", pattern}` on the raw text',
    differences: [],
  },
  {
    name: 'Decimal: bounds and precision',
    definition: {
      type: 'number_decimal',
      validations: [
        { name: 'min', value: '-1000' },
        { name: 'max', value: '99999.99' },
        { name: 'max_precision', value: '2' },
      ],
    },
    schema: { type: 'number', minimum: -1000, maximum: 99999.99, multipleOf: 0.01 },
    ajvOptions: { multipleOfPrecision: 6 },
    ajvInput: 'json',
    inputs: () =>
      mix(
        () => (rand() < 0.02 ? pick(['-1000', '99999.99', '0']) : decimalText(-1000, 99999.99, 2)),
        () =>
          pick([
            () => decimalText(100000, 1e9, 2),
            () => decimalText(-1e6, -1000.01, 2),
            () => `${int(0, 9999)}.${digits(2)}${int(1, 9)}`, // three fraction digits
            () => pick(['abc', '12,50', '.5', '5.', '+5', '05', '"12.5"', 'NaN', '1_000', '--1']),
          ])(),
      ),
    ours:
      'number_decimal: reads the raw text as a value write does (strict decimal format, at most 13 + 9 digits), min/max compared exactly (on doubles first, on decimal.js decimals when the doubles are within 1e-12 of each other), fraction digits counted as written',
    theirs:
      '`JSON.parse(raw)` inside the timed loop (a throw counts as invalid), then `{type: "number", minimum: -1000, maximum: 99999.99, multipleOf: 0.01}` on the double, Ajv option `multipleOfPrecision: 6` (without it 0.29 is not a multiple of 0.01 in floating point)',
    differences: [
      { raw: '1e2', ours: false, ajv: true, why: 'exponent: refused by the decimal format, a JSON number' },
      { raw: '1.500', ours: false, ajv: true, why: 'precision counts digits as written; the double 1.5 is a multiple of 0.01' },
      { raw: ' 12', ours: false, ajv: true, why: 'JSON.parse skips surrounding whitespace' },
    ],
  },
  {
    name: 'list.weight: bounds in other units',
    definition: {
      type: 'list.weight',
      validations: [
        { name: 'list.max', value: '10' },
        { name: 'min', value: '{"value":"100","unit":"g"}' },
        { name: 'max', value: '{"value":"50","unit":"lb"}' },
      ],
    },
    schema: {
      type: 'array',
      maxItems: 10,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['value', 'unit'],
        properties: { value: { type: 'number' }, unit: { enum: Object.keys(WEIGHT_UNITS) } },
        anyOf: Object.entries(WEIGHT_UNITS).map(([unit, f]) => ({
          properties: { unit: { const: unit }, value: { minimum: WEIGHT_MIN_G / f, maximum: WEIGHT_MAX_G / f } },
        })),
      },
    },
    ajvInput: 'json',
    inputs: () =>
      mix(
        () => `[${weightList(int(1, 6)).map(weightJson).join(',')}]`,
        () =>
          pick([
            () => `[${[...weightList(int(0, 4)), weightElement(false)].map(weightJson).join(',')}]`,
            () => `[${weightList(11).map(weightJson).join(',')}]`,
            () => `[{"value":${int(1, 20)},"unit":"st"}]`,
            () => `[{"value":"${int(1, 20)}","unit":"kg"}]`,
            () => `[{"value":${int(1, 20)}}]`,
            () => `[{"value":${int(1, 20)},"unit":"kg","note":"x"}]`,
            () => `{"value":${int(1, 20)},"unit":"kg"}`,
            () => `[{"value":${int(1, 20)},"unit":"kg"}`,
          ])(),
      ),
    ours:
      'list.weight: strict JSON reader (numbers kept as text, duplicate keys refused, exactly the keys value and unit), each value checked as a decimal, converted to grams and compared exactly with the bounds 100 g and 50 lb (doubles first, as above); list.max 10',
    theirs:
      '`JSON.parse(raw)` in the loop, then an array schema (maxItems 10) whose items are `{value: number, unit: enum}` with `anyOf` one branch per unit carrying that unit\'s bounds, converted ahead of time to doubles (lb and oz bounds are not exact: inputs stay a millionth away from them)',
    differences: [
      { raw: '[{"value":1,"value":2,"unit":"kg"}]', ours: false, ajv: true, why: 'duplicate key: refused; JSON.parse keeps the last' },
      { raw: '[{"value":1e3,"unit":"g"}]', ours: false, ajv: true, why: 'exponent in a measure value' },
      { raw: '["",{"value":1,"unit":"kg"}]', ours: true, ajv: false, why: 'an empty element is allowed, decisions §2.6; the schema has no such branch' },
    ],
  },
  {
    name: 'JSON with a schema',
    definition: { type: 'json', validations: [{ name: 'schema', value: JSON.stringify(PRODUCT_SCHEMA) }] },
    schema: PRODUCT_SCHEMA,
    ajvInput: 'json',
    patterns: true,
    inputs: () =>
      mix(
        () => JSON.stringify(product()),
        () =>
          pick([
            () => JSON.stringify({ ...product(), sku: `${letters(2)}-${digits(4)}` }),
            () => JSON.stringify({ ...product(), tags: undefined }),
            () => JSON.stringify({ ...product(), extra: true }),
            () => JSON.stringify({ ...product(), price: -1 }),
            () => JSON.stringify({ ...product(), tags: ['eco', 'sale', 'eco'] }),
            () => JSON.stringify({ ...product(), tags: WORDS.slice(0, 9) }),
            () => JSON.stringify({ ...product(), color: 'purple' }),
            () => JSON.stringify({ ...product(), released: '2025-02-30' }),
            () => JSON.stringify({ ...product(), dimensions: { w: 1, h: 2, d: 3, x: 4 } }),
            () => JSON.stringify([product()]),
            () => JSON.stringify(product()).slice(0, -1),
          ])(),
      ),
    ours:
      'json: byte limit, `JSON.parse`, nesting bound, then the schema compiled by Ajv 2020-12 inside the engine (patterns compiled by re2js and run on the engine\'s DFA, formats from ajv-formats, `uniqueItems` by hashing)',
    theirs: '`JSON.parse(raw)` in the loop, then the same schema compiled by Ajv 2020-12 (Ajv\'s own `uniqueItems`)',
    differences: [],
  },
];

// --- Checking and timing. ---

const RUNNERS = {
  // Separate function objects per side (new Function) so no side inherits another's type feedback.
  ours: 'let ok = 0; for (let k = 0; k < iters; k++) for (let i = 0; i < inputs.length; i++) if (check(inputs[i], ctx).ok === true) ok++; return ok;',
  string: 'let ok = 0; for (let k = 0; k < iters; k++) for (let i = 0; i < inputs.length; i++) if (check(inputs[i]) === true) ok++; return ok;',
  json:
    'let ok = 0; for (let k = 0; k < iters; k++) for (let i = 0; i < inputs.length; i++) { let data; try { data = JSON.parse(inputs[i]); } catch { continue; } if (check(data) === true) ok++; } return ok;',
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

function time(side, iters) {
  const start = process.hrtime.bigint();
  side.sink += side.run(side.check, side.inputs, iters, CTX);
  return Number(process.hrtime.bigint() - start) / 1e9;
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

const results = [];
const began = Date.now();
// Every scenario's inputs are drawn, in order, even when only one runs: the same seed, the same text.
const INPUT_SETS = new Map(SCENARIOS.map((s) => [s, s.inputs()]));
for (const scenario of SCENARIOS.filter((_, i) => ONLY === undefined || i === ONLY)) {
  const inputs = INPUT_SETS.get(scenario);
  const ours = compileValidator(scenario.definition);
  const theirs = ajv('js', scenario.ajvOptions).compile(scenario.schema);
  const sides = [
    { label: 'ours', kind: 'ours', check: ours, inputs },
    { label: 'ajv', kind: scenario.ajvInput, check: theirs, inputs },
  ];
  if (scenario.patterns) sides.push({ label: 'ajv-re2', kind: scenario.ajvInput, check: ajv('re2js', scenario.ajvOptions).compile(scenario.schema), inputs });

  // Both sides must agree on every timed input, and the documented differences must still hold.
  let valid = 0;
  for (const raw of inputs) {
    const verdicts = sides.map((s) => verdict(s, raw));
    if (verdicts.some((v) => v !== verdicts[0])) {
      console.error(`${scenario.name}: sides disagree on ${JSON.stringify(raw)}: ${sides.map((s, i) => `${s.label}=${verdicts[i]}`).join(' ')}`);
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
  const row = { scenario, valid, total: inputs.length, notJson: inputs.length - parseable.length };
  for (const side of sides) row[side.label] = { rate: median(side.rates), spread: spread(side.rates) };
  results.push(row);
  if (SIDE !== undefined) {
    console.log(`${scenario.name}: ${SIDE} ${(row[SIDE].rate / 1e6).toFixed(2)} M/s`);
    continue;
  }
  const show = sides.map((s) => `${s.label} ${(row[s.label].rate / 1e6).toFixed(2)} M/s`).join(', ');
  console.log(`${scenario.name}: ${show}`);
}
const seconds = (Date.now() - began) / 1000;
if (SIDE !== undefined) process.exit(0);

// --- Report. ---

const rate = (r) => (r === undefined ? 'n/a' : `${(r.rate / 1e6).toFixed(2)} M ±${Math.round(100 * r.spread)}%`);
const ratio = (a, b) => (a === undefined || b === undefined ? 'n/a' : `${(a.rate / b.rate).toFixed(2)}x`);
const lines = [
  `Run ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}, ` +
    `on a shared machine (other work was running: absolute numbers move between runs, the ratios, timed in the same rounds, much less). ` +
    `${INPUTS.toLocaleString('en-US')} fixed inputs per scenario (${Math.round(VALID_SHARE * 100)}% generated valid), the same verdict from every side checked before timing; ` +
    `checks per second are the median of ${ROUNDS} interleaved rounds of about ${ROUND_MS} ms after ${WARMUP_MS} ms of warm-up, ± half the interquartile range; M = million. Total ${seconds.toFixed(0)} s.`,
  '',
  '| Scenario | Valid | Ours, checks/s | Ajv (JS RegExp) | Ajv (re2js) | Ours / Ajv | Ours / Ajv (re2js) | Ours / Ajv, inputs that parse as JSON |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
];
for (const r of results) {
  const subset = r.notJson > 0 ? `${ratio(r['ours-parsed'], r['ajv-parsed'])} (${r.total - r.notJson} inputs)` : 'n/a';
  lines.push(
    `| ${r.scenario.name} | ${r.valid}/${r.total} | ${rate(r.ours)} | ${rate(r.ajv)} | ${r.scenario.patterns ? rate(r['ajv-re2']) : 'n/a (no pattern)'} | **${ratio(r.ours, r.ajv)}** | ${ratio(r.ours, r['ajv-re2'])} | ${subset} |`,
  );
}
lines.push('', 'What each side does (every timed check starts from the same text):', '');
for (const r of results) {
  const s = r.scenario;
  lines.push(`- **${s.name}.** Ours: ${s.ours}. Ajv: ${s.theirs}.`);
  if (r.notJson > 0) {
    lines.push(`  ${r.notJson} of the inputs are not JSON: Ajv's JSON.parse throws on them${s.ajvInput === 'json' && s.definition.type === 'json' ? ', and so does ours' : ''}; the last column times both sides without them.`);
  }
  if (s.differences.length > 0) {
    lines.push(`  Documented differences (checked every run, not timed): ${s.differences.map((d) => `\`${d.raw}\` ours ${d.ours ? 'valid' : 'invalid'}, Ajv ${d.ajv ? 'valid' : 'invalid'} (${d.why})`).join('; ')}.`);
  }
}
lines.push(
  '- Ajv 8 (2020-12) with the options the engine gives it (`strict: false`, `allErrors: false`, `$data: false`, `ownProperties: true`, `code.optimize: false`, ajv-formats full), each schema compiled once, outside the timed loop. ' +
    'ReDoS: our `regex` rule, and `pattern` in the engine\'s JSON Schemas, have RE2 semantics (compiled by re2js, run on the engine\'s lazy DFA or on re2js: linear time, no backtracking); Ajv\'s `pattern` runs on JS RegExp (backtracking) by default. ' +
    'The "Ajv (re2js)" column is Ajv given re2js as its `code.regExp` engine, so the comparison also stands on linear-time matching.',
);
const met = results.filter((r) => r.ours.rate >= r.ajv.rate);
const missed = results.filter((r) => r.ours.rate < r.ajv.rate);
const against = (r) => [
  ratio(r.ours, r.ajv),
  ...(r['ajv-re2'] ? [`${ratio(r.ours, r['ajv-re2'])} against Ajv on re2js`] : []),
  ...(r.notJson > 0 ? [`${ratio(r['ours-parsed'], r['ajv-parsed'])} on the inputs that parse`] : []),
].join(', ');
lines.push(
  '',
  `**Goal (at least as fast as Ajv) in this run:** ${met.length === 0 ? 'met in no scenario' : `met for ${met.map((r) => `${r.scenario.name} (${against(r)})`).join('; ')}`}` +
    `${missed.length === 0 ? '.' : `; not met for ${missed.map((r) => `${r.scenario.name} (${against(r)})`).join('; ')}.`}`,
);
const table = lines.join('\n');
if (ONLY !== undefined || SIDE !== undefined) {
  console.log(`\n${table}\n`);
  process.exit(0);
}
writeResults('rules', table);
