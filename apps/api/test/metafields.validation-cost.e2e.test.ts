import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_CHECK_BUDGET } from '@platform/domain';
import { MetafieldValidators } from '../src/metafields/metafield-rules';
import { startPlatform, type TestPlatform } from './harness';
import { PLATFORM_ENV, storeValues, storeWithProducts, workerOf, type Api } from './metafields.helpers';

// Issue 8 (security review), findings 2 and 3, end to end: one app could hold the event loop for
// seconds with costly patterns (decisions §8.11: every search is charged at its engine's measured
// rate, one value and one request have work budgets, the event loop is given back between values,
// the re-check works in bounded steps), and compiled validators had no memory bound.

const HANDLE = 'validation-cost';
const REVIEWER = '(?i)(a|b)*a(a|b){195}x';
/** A smaller pattern of the same kind: 98 instructions on re2js, so 5,000 characters fit one value's budget. */
const SMALLER = '(?i)(a|b)*a(a|b){30}x';
let t: TestPlatform;
let api: Api;
let products: string[];

beforeAll(async () => {
  // The re-check is run by hand here (runOnce), so its steps can be counted.
  t = await startPlatform({ ...PLATFORM_ENV, PLATFORM_METAFIELD_RECHECK_INTERVAL_MS: '0' });
  const s = await storeWithProducts(t, HANDLE, 25);
  api = s.api;
  products = s.productIds;
});
afterAll(async () => t?.close());

let seed = 7;
/** `n` pseudo-random a and b (the same every run): the text that keeps the most re2js threads alive. */
function ab(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    out += seed % 2 === 0 ? 'a' : 'b';
  }
  return out;
}

const entries = (key: string, values: string[]) =>
  values.map((value, i) => ({ owner_resource: 'products', owner_id: products[i], namespace: 'cost', key, value }));

describe('the cost of checking values (issue 8, finding 2; decisions §8.11)', () => {
  it("refuses the reviewer's bulk set (25 x 64 KB against a case-folded exponential pattern) as too costly, without searching", async () => {
    await api.define({
      namespace: 'cost',
      key: 'folded',
      type: 'multi_line_text_field',
      validations: [{ name: 'regex', value: REVIEWER }],
    });
    const r = await api.set(
      entries(
        'folded',
        Array.from({ length: 25 }, () => ab(65_536)),
      ),
    );
    expect(r.status).toBe(422);
    expect(r.body.errors).toMatch(
      /^metafields\[0\]\.value: is too costly to check against this regular expression \(it would take more than the work one value may cost\) \(rule regex\); metafields\[1\]\.value: is too costly/,
    );
  });

  it('refuses the same pattern as a JSON schema pattern on strings of 100,000 characters', async () => {
    await api.define({
      namespace: 'cost',
      key: 'schema',
      type: 'json',
      validations: [{ name: 'schema', value: JSON.stringify({ type: 'string', pattern: REVIEWER }) }],
    });
    const r = await api.set(
      entries(
        'schema',
        Array.from({ length: 25 }, () => JSON.stringify(ab(100_000))),
      ),
    );
    expect(r.status).toBe(422);
    expect(r.body.errors).toMatch(/^metafields\[0\]\.value: does not conform to the schema: is too costly to check against this schema/);
  });

  it('refuses a request whose values together would cost more than one request may, naming the limit', async () => {
    await api.define({
      namespace: 'cost',
      key: 'smaller',
      type: 'multi_line_text_field',
      validations: [{ name: 'regex', value: SMALLER }],
    });
    // Each value fits its own budget (about 31 million units); 25 of them do not fit one request's.
    const r = await api.set(
      entries(
        'smaller',
        Array.from({ length: 25 }, () => ab(5_000)),
      ),
    );
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe(
      `metafields: are too costly to check together in one request (their checks would take more than ${REQUEST_CHECK_BUDGET.toLocaleString('en-US')} units of work, about 0.8 s; send fewer or smaller values per request)`,
    );
    // Fewer of them are judged as usual.
    const few = await api.set(
      entries(
        'smaller',
        Array.from({ length: 3 }, () => ab(5_000)),
      ),
    );
    expect(few.status).toBe(422);
    expect(few.body.errors).toMatch(/^metafields\[0\]\.value: does not match the regular expression \(rule regex\)/);
  });

  it('gives the event loop back between values while a bulk set is validated', async () => {
    await api.define({ namespace: 'cost', key: 'paced', type: 'multi_line_text_field', validations: [{ name: 'regex', value: SMALLER }] });
    // A ticker on the event loop, and each value's check noting how many turns it had seen: with the
    // loop given back between values (each of these spends 12 million units, past YIELD_EVERY_UNITS),
    // the ticker turns between every two values; checked in one synchronous run, it never would.
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    const validators = t.platform.app.get(MetafieldValidators);
    const original = validators.forDefinition.bind(validators);
    const seen: number[] = [];
    validators.forDefinition = (definition) => {
      const compiled = original(definition);
      if (!compiled.ok || definition.key !== 'paced') return compiled;
      const validate = compiled.validator;
      const noting = (raw: string, ctx: Parameters<typeof validate>[1]) => {
        seen.push(turns);
        return validate(raw, ctx);
      };
      return { ok: true, validator: Object.assign(noting, { bytes: validate.bytes }) };
    };
    try {
      setImmediate(tick);
      const r = await api.set(
        entries(
          'paced',
          Array.from({ length: 10 }, () => ab(2_000)),
        ),
      );
      expect(r.status).toBe(422);
      expect(r.body.errors).toMatch(/^metafields\[0\]\.value: does not match/);
    } finally {
      ticking = false;
      validators.forDefinition = original;
    }
    expect(seen).toHaveLength(10);
    for (let i = 1; i < seen.length; i++) expect(seen[i], `turns before value ${i}`).toBeGreaterThan(seen[i - 1]!);
  });

  it('re-checks in bounded steps: a step judges values up to its work budget, and the next step goes on from there', async () => {
    await api.define({ namespace: 'cost', key: 'later', type: 'multi_line_text_field' });
    expect(
      (
        await api.set(
          entries(
            'later',
            Array.from({ length: 6 }, () => ab(5_000)),
          ),
        )
      ).status,
    ).toBe(200);
    await api.redefine({ namespace: 'cost', key: 'later', validations: [{ name: 'regex', value: SMALLER }] });
    const worker = workerOf(t);
    const budget = worker.stepBudget;
    const judged = async () =>
      ((await storeValues(t, HANDLE, '?valid=false&limit=1000')).body.metafields as { key: string }[]).filter((m) => m.key === 'later')
        .length;
    try {
      // Two values of about 31 million units each fill a step of 60 million: the step stops there.
      worker.stepBudget = 60_000_000;
      await worker.runOnce({ maxBatches: 1 });
      expect(await judged()).toBe(2);
      await worker.runOnce({ maxBatches: 1 });
      expect(await judged()).toBe(4);
      await worker.drain();
      expect(await judged()).toBe(6);
    } finally {
      worker.stepBudget = budget;
    }
    const reasons = (
      (await storeValues(t, HANDLE, '?valid=false&limit=1000')).body.metafields as { key: string; invalid_reasons: string[] }[]
    )
      .filter((m) => m.key === 'later')
      .map((m) => m.invalid_reasons);
    expect(reasons.every((r) => r[0] === 'value: does not match the regular expression (rule regex)')).toBe(true);
  });
});

describe('the memory of compiled validators (issue 8, finding 3)', () => {
  it('refuses at definition time a schema whose compile would cost too much: 1,400 patternProperties', async () => {
    const define = (subschema: unknown) =>
      api.admin('/metafield_definition.json', {
        method: 'POST',
        body: {
          definition: {
            owner_resource: 'products',
            namespace: 'cost',
            key: 'patterns',
            name: 'Patterns',
            type: 'json',
            validations: [
              {
                name: 'schema',
                value: JSON.stringify({
                  type: 'object',
                  patternProperties: Object.fromEntries(Array.from({ length: 1_400 }, (_, i) => [`^k${i}$`, subschema])),
                }),
              },
            ],
          },
        },
      });
    // The reviewer's shape: a subschema per pattern (compiled to 15 MB in 0.4 s each).
    const reviewers = await define({ type: 'string' });
    expect(reviewers.status).toBe(422);
    expect(reviewers.body.errors).toBe('validations[0].value: is too large (at most 300 objects and arrays) (rule schema)');
    const bare = await define(true);
    expect(bare.status).toBe(422);
    expect(bare.body.errors).toBe('validations[0].value: has too many distinct patterns (at most 50) (rule schema)');
  });

  it('keeps the cached validators under the memory bound, evicting the least recently used', async () => {
    const validators = t.platform.app.get(MetafieldValidators);
    const bound = validators.maxBytes;
    try {
      validators.maxBytes = 3 * 1024 * 1024;
      const schema = (k: number) =>
        JSON.stringify({
          type: 'object',
          patternProperties: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`^k${k}_${i}[a-z]{1,8}$`, true])),
        });
      for (let k = 0; k < 8; k++) {
        await api.define({ namespace: 'cost', key: `cached_${k}`, type: 'json', validations: [{ name: 'schema', value: schema(k) }] });
        expect(
          (await api.set([{ owner_resource: 'products', owner_id: products[0], namespace: 'cost', key: `cached_${k}`, value: '{}' }]))
            .status,
        ).toBe(200);
        expect(validators.accountedBytes).toBeLessThanOrEqual(validators.maxBytes);
      }
      expect(validators.accountedBytes).toBeGreaterThan(validators.maxBytes / 4);
      expect(validators.size).toBeLessThan(8);
    } finally {
      validators.maxBytes = bound;
    }
  });
});
