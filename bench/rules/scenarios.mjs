// The scenarios of bench/rules (run.mjs): each a metafield definition, the closest JSON Schema,
// and 1,000 inputs from a fixed, seeded generator, so every run checks the same text.

export const INPUTS = Number(process.env.BENCH_INPUTS ?? 1000);
export const VALID_SHARE = 0.8;

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

const WORDS = [
  'cotton',
  'linen',
  'wool',
  'summer',
  'winter',
  'sale',
  'new',
  'organic',
  'recycled',
  'gift',
  'kids',
  'outdoor',
  'indoor',
  'classic',
  'limited',
  'eco',
];
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
  const [lo, hi] = inRange
    ? [WEIGHT_MIN_G / f, WEIGHT_MAX_G / f]
    : pick([
        [0, (WEIGHT_MIN_G / f) * 0.95],
        [(WEIGHT_MAX_G / f) * 1.05, (WEIGHT_MAX_G / f) * 2],
      ]);
  // Never within a millionth of a bound: the schema's bounds in lb and oz are doubles (documented).
  for (;;) {
    const text = decimalText(lo, hi, 3);
    const g = Number(text) * f;
    const near = Math.abs(g - WEIGHT_MIN_G) < 1e-6 * WEIGHT_MIN_G || Math.abs(g - WEIGHT_MAX_G) < 1e-6 * WEIGHT_MAX_G;
    if (!near && (inRange ? g >= WEIGHT_MIN_G && g <= WEIGHT_MAX_G : g < WEIGHT_MIN_G || g > WEIGHT_MAX_G))
      return { value: Number(text), unit, text };
  }
}
const weightJson = (e) => `{"value":${e.text},"unit":"${e.unit}"}`;
const weightList = (n) => Array.from({ length: n }, () => weightElement());

export const SCENARIOS = [
  {
    name: 'Text: regex and choices',
    // Regular-expression rows: RE2 (linear time) against V8's backtracking RegExp; not in the goal.
    regexRow: true,
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
    ours: "single_line_text_field (no line break, size in UTF-8 bytes); regex `^[A-Z]{2,4}-[0-9]{3,6}$` with RE2 semantics (compiled by re2js, run on the engine's DFA); choices (40 codes). The engine keeps the regex verdict of each choice once taken, so a value that is a choice is searched once",
    theirs: '`{type: "string", pattern, enum: [40 codes]}` on the raw text as a JS string (nothing to parse)',
    differences: [],
  },
  {
    name: 'Text: regex only',
    regexRow: true,
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
    ours: 'number_decimal: reads the raw text as a value write does (strict decimal format, at most 13 + 9 digits, read by hand in one pass that also makes the double), min/max compared exactly (the doubles decide unless they are equal, since each is the nearest to its decimal; then decimal.js decimals), fraction digits counted as written',
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
    ours: "list.weight: a one-pass reader of measure lists (numbers kept as text, exactly the keys value and unit, each written once; any other text goes to the strict JSON reader, which says what is wrong), each value checked as a decimal, converted to grams and compared exactly with the bounds 100 g and 50 lb (the double times the unit's factor first, the exact decimal product when the two are within 1e-12 of each other); list.max 10",
    theirs:
      "`JSON.parse(raw)` in the loop, then an array schema (maxItems 10) whose items are `{value: number, unit: enum}` with `anyOf` one branch per unit carrying that unit's bounds, converted ahead of time to doubles (lb and oz bounds are not exact: inputs stay a millionth away from them)",
    differences: [
      { raw: '[{"value":1,"value":2,"unit":"kg"}]', ours: false, ajv: true, why: 'duplicate key: refused; JSON.parse keeps the last' },
      { raw: '[{"value":1e3,"unit":"g"}]', ours: false, ajv: true, why: 'exponent in a measure value' },
      {
        raw: '["",{"value":1,"unit":"kg"}]',
        ours: true,
        ajv: false,
        why: 'an empty element is allowed, decisions §2.6; the schema has no such branch',
      },
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
    ours: "json: byte limit, then one pass that reads the JSON into records (objects that inherit nothing), refuses a key given twice and bounds the nesting (text that is not JSON costs no exception), then the schema compiled by Ajv 2020-12 inside the engine: `ownProperties` off (a record has nothing to inherit), the work budget charged inline, `uniqueItems`, `const`, `enum`, `maxLength` and `minLength` as the engine's own code keywords (hashing; JSON equality; code points counted only when the length leaves it open), patterns compiled by re2js and run on the engine's DFA, formats from ajv-formats (`date` without regex captures)",
    theirs:
      '`JSON.parse(raw)` in the loop, then the same schema compiled by Ajv 2020-12 (its own keywords; `ownProperties: true`, without which `required` finds what a plain object inherits)',
    differences: [
      {
        raw: '{"sku":"ABC-1234","title":"x","price":1,"dimensions":{"w":1,"h":1,"d":1},"tags":[],"sku":"ABC-1235"}',
        ours: false,
        ajv: true,
        why: 'duplicate key: refused; JSON.parse keeps the last',
      },
    ],
  },
];
