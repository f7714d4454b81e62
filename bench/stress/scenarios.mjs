// bench/stress's scenarios: the costliest validation inputs we know of (run.mjs runs them).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { RE2JS } = require('re2js');

// ---- inputs ----------------------------------------------------------------------------------

let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
/** `n` characters drawn from `alphabet` (code points), with `every`-th an `insert` (0: none). */
function text(alphabet, n, every = 0, insert = 'x') {
  const chars = [...alphabet];
  let out = '';
  for (let i = 1; i <= n; i++) out += every > 0 && i % every === 0 ? insert : chars[Math.floor(random() * chars.length)];
  return out;
}
const programSize = (p) => RE2JS.compile(p).matcher('').programSize();
/** The largest `{n}` for which `make(n)` compiles to at most `max` instructions. */
function fit(make, max = 600) {
  let n = 1;
  while (programSize(make(n + 1)) <= max) n++;
  return make(n);
}

const REVIEWER = '(?i)(a|b)*a(a|b){195}x';
const WORDS =
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber azure beige coral cyan ivory jade khaki lemon lilac mauve ochre olive peach plum ruby rust sable scarlet sepia tan teal umber violet wheat'.split(
    ' ',
  );
function alternation() {
  let n = WORDS.length;
  while (programSize(`(?i)\\b(?:${WORDS.slice(0, n).join('|')})\\b`) > 600) n--;
  return `(?i)\\b(?:${WORDS.slice(0, n).join('|')})\\b`;
}

// ---- scenarios -------------------------------------------------------------------------------

/** A definition through the Admin API; `refused` holds the 422 text when it is refused. */
async function define(ctx, key, type, validations) {
  const r = await ctx.admin('/metafield_definition.json', {
    body: { definition: { owner_resource: 'products', namespace: 'stress', key, name: key, type, validations } },
  });
  if (r.status === 201) return { ok: true, id: JSON.parse(r.text).definition.id };
  if (r.status === 422) return { ok: false, refused: JSON.parse(r.text).errors };
  throw new Error(`define ${key}: ${r.status} ${r.text.slice(0, 300)}`);
}

/** `rounds` bulk sets of one value per product (up to 25) under stress.<key>. */
async function bulk(ctx, key, type, values, rounds = 2, owners = ctx.products) {
  const results = [];
  for (let round = 0; round < rounds && !ctx.late(); round++) {
    const metafields = values.map((value, i) => ({
      owner_resource: 'products',
      owner_id: owners[i],
      namespace: 'stress',
      key,
      type,
      value,
    }));
    results.push(await ctx.admin('/metafields_set.json', { body: { metafields } }));
  }
  return results;
}

const regexScenario = (key, pattern, makeValue, note) => ({
  name: `regex ${pattern.length > 60 ? `${pattern.slice(0, 57)}...` : pattern}: bulk set 25 x 64 KB${note ? ` (${note})` : ''}`,
  async run(ctx) {
    const d = await define(ctx, key, 'multi_line_text_field', [{ name: 'regex', value: pattern }]);
    if (!d.ok) return { refused: d.refused };
    return { requests: await bulk(ctx, key, 'multi_line_text_field', Array.from({ length: 25 }, makeValue)) };
  },
});

const schemaScenario = (key, name, schema, makeValue, rounds = 2) => ({
  name,
  async run(ctx) {
    const d = await define(ctx, key, 'json', [{ name: 'schema', value: JSON.stringify(schema) }]);
    if (!d.ok) return { refused: d.refused };
    return { requests: await bulk(ctx, key, 'json', Array.from({ length: 25 }, makeValue), rounds) };
  },
});

/** The last value K wrote: M's re-check is done when it is judged. */
let recheckLastId = 0n;

/** The scenarios by letter; `op` calls the operator API of the stressed server. */
export function stressScenarios(op) {
  return {
    A: regexScenario('rev_regex', REVIEWER, () => text('ab', 65_536), "reviewer's"),
    B: regexScenario('dfa_overflow', '(a|b)*a(a|b){195}x', () => text('ab', 65_536, 100), 'no (?i): the DFA overflows to re2js'),
    C: schemaScenario(
      'rev_schema',
      `schema pattern ${REVIEWER}: bulk set 25 strings of 100,000 characters (reviewer's)`,
      { type: 'string', pattern: REVIEWER },
      () => JSON.stringify(text('ab', 100_000)),
    ),
    D: regexScenario(
      'nested',
      fit((n) => `(?i)((a|b)+)+a(a|b){${n}}x`),
      () => text('ab', 65_536, 150),
      'nested quantifiers',
    ),
    E: regexScenario('alternation', alternation(), () => text('abcdefghiklmnoprstuvwxyz', 65_536), 'huge (?i) alternation'),
    F: regexScenario(
      'unicode',
      fit((n) => `(?i)(\\pL|ǅ)*ǅ[\\pL\\pN]{${n}}x`),
      () => text('ǅéßkKſ', 32_768, 120),
      '(?i) Unicode classes, 32,768 characters of 1-2 bytes',
    ),
    G: regexScenario(
      'bigclass',
      fit((n) => `(?i)[a-zà-ÿ\\p{Greek}]*[a-zà-ÿ]{${n}}[\\p{Cyrillic}]`),
      () => text('abcàéσ', 32_768),
      '(?i) big classes, 32,768 characters of 1-2 bytes',
    ),
    H: schemaScenario(
      'patterns_on_keys',
      'schema: 30 patternProperties of ~580 instructions on a 128 KB object of keys: bulk set 25',
      {
        type: 'object',
        patternProperties: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`(?i)(a|b)*a(a|b){${190 - i}}x`, true])),
      },
      () => JSON.stringify(Object.fromEntries(Array.from({ length: 1_900 }, (_, i) => [`${i}${text('ab', 60)}`, 0]))),
    ),
    I: schemaScenario(
      'wide',
      'schema: 296 properties (about the most objects a schema may hold), values of 1,600 records: bulk set 25',
      {
        type: 'array',
        items: {
          type: 'object',
          properties: Object.fromEntries(Array.from({ length: 296 }, (_, i) => [`p${i}`, { type: 'string', description: 'x'.repeat(60) }])),
        },
      },
      () => JSON.stringify(Array.from({ length: 1_600 }, (_, i) => ({ [`p${i % 296}`]: 'v'.repeat(40), p1: 'abc' }))),
    ),
    L: schemaScenario(
      'branches',
      'schema: 55 oneOf branches each with its properties (a costly compile near the object bound): bulk set 25',
      {
        type: 'array',
        items: {
          oneOf: Array.from({ length: 55 }, (_, i) => ({
            type: 'object',
            required: [`k${i}`],
            properties: { [`k${i}`]: { const: i }, v: { type: 'string', minLength: 1 } },
          })),
        },
      },
      () => JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ [`k${i % 55}`]: i % 55, v: 'x' }))),
    ),
    J: {
      name: "schema: 20 definitions of 1,400 patternProperties each (the reviewer's; compile time and memory), then 20 of 50 (the most patterns a schema may hold)",
      async run(ctx) {
        const requests = [];
        let refused;
        for (let k = 0; k < 40 && !ctx.late(); k++) {
          const count = k < 20 ? 1_400 : 50;
          const schema = {
            type: 'object',
            patternProperties: Object.fromEntries(
              Array.from({ length: count }, (_, i) => [`^k${k}_${i}[a-z]{0,8}$`, k < 20 ? { type: 'string', maxLength: 10 } : true]),
            ),
          };
          const started = performance.now();
          const d = await define(ctx, `pp_${k}`, 'json', [{ name: 'schema', value: JSON.stringify(schema) }]);
          requests.push({ status: d.ok ? 201 : 422, ms: performance.now() - started });
          if (!d.ok) {
            refused = d.refused;
            continue;
          }
          requests.push(...(await bulk(ctx, `pp_${k}`, 'json', ['{"k0_1":"a"}'], 1)));
        }
        return { requests, refused };
      },
    },
    K: {
      name: 'writes without rules, the baseline of M: 200 values of 64 KB in 8 bulk sets of 25',
      async run(ctx) {
        await define(ctx, 'recheck', 'multi_line_text_field', []);
        const requests = [];
        for (let start = 0; start < 200 && !ctx.late(); start += 25) {
          const owners = ctx.products.slice(start, start + 25);
          const [r] = await bulk(
            ctx,
            'recheck',
            'multi_line_text_field',
            owners.map(() => text('ab', 65_536)),
            1,
            owners,
          );
          requests.push(r);
          for (const m of JSON.parse(r.text).metafields ?? []) if (BigInt(m.id) > recheckLastId) recheckLastId = BigInt(m.id);
        }
        return { requests };
      },
    },
    M: {
      name: `re-check: the 200 values of K, after ${REVIEWER} is added by a definition update`,
      async run(ctx) {
        const started = performance.now();
        const update = await ctx.admin('/metafield_definition.json', {
          method: 'PUT',
          body: {
            definition: {
              owner_resource: 'products',
              namespace: 'stress',
              key: 'recheck',
              validations: [{ name: 'regex', value: REVIEWER }],
            },
          },
        });
        const requests = [update];
        if (update.status !== 200) return { requests, refused: JSON.parse(update.text).errors };
        // The re-check goes through the values in id order: it is done when the last one carries its
        // verdict (invalid under the new rule). Asked for that one value alone, so the poll stays cheap.
        let judged = 0;
        while (!ctx.late() && judged === 0) {
          await new Promise((r) => setTimeout(r, 250));
          const r = await op(`/stores/stress/metafields?valid=false&limit=1&since_id=${recheckLastId - 1n}`, undefined, 'GET');
          judged = JSON.parse(r.text).metafields.length;
        }
        return { requests, recheck: { judged: judged === 1 ? 200 : 0, ms: performance.now() - started } };
      },
    },
  };
}
