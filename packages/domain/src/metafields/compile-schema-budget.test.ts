import { describe, expect, it } from 'vitest';
import { SCHEMA_CHECK_BUDGET, SCHEMA_MAX_NODES, SCHEMA_MAX_PATTERNS, compileJsonSchema, schemaCheckMeter } from './compile-schema';
import { compiled, doublingChain } from './compile-schema.test-support';

describe('the work budget of one check (decisions §8.11: one value cannot stall the service)', () => {
  const TOO_COSTLY = 'is too costly to check against this schema (it would take more than the work one value may cost)';
  const big = (n: number, item: string) => JSON.parse(`[${Array(n).fill(item).join(',')}]`) as unknown[];

  /**
   * Compiles, then checks `data`. That these stop by the work budget, not by finishing, is what the
   * verdict shows; how long they take is measured by bench/stress, not asserted (machines are noisy).
   */
  function checked(schema: unknown, data: unknown): { problem: string | null } {
    const run = compiled(schema);
    return { problem: run(data, JSON.stringify(data)) };
  }

  it.each([
    // 2,900 subschemas applied to each of 60,000 items (unbounded, 5 s before).
    [
      'a wide allOf on every item',
      { items: { allOf: Array.from({ length: SCHEMA_MAX_NODES - 10 }, (_, i) => ({ minimum: -i })) } },
      () => big(60_000, '1'),
    ],
    // A chain of 40 definitions each applying the next twice: 2^40 applications.
    [
      'a chain of $refs doubling at each step',
      (() => {
        const $defs: Record<string, unknown> = {};
        for (let i = 0; i < 40; i++)
          $defs[`d${i}`] = i === 39 ? { type: 'string' } : { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
        return { $defs, $ref: '#/$defs/d0' };
      })(),
      () => 'x',
    ],
    ['a $ref to itself in place', { $defs: { a: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' }, () => 1],
    // The same chain through arrays within an unknown keyword's array, and within a map entry's
    // array: left uncounted, 22 levels took 2 s and each level doubled it (40 levels: hours).
    ['a chain of $refs through arrays within arrays', doublingChain(['x', '0'], 22), () => 'x'],
    ['a chain of $refs through arrays in a map entry', doublingChain(['x-extra', 'a', '0'], 22), () => 'x'],
    ['a chain of $refs through arrays within arrays, 40 levels', doublingChain(['x', '0'], 40), () => 'x'],
    [
      'uniqueItems again and again',
      { allOf: Array.from({ length: SCHEMA_MAX_NODES - 10 }, () => ({ uniqueItems: true })) },
      () => Array.from({ length: 9_000 }, (_, i) => ({ a: i })),
    ],
    [
      'patterns of the largest program on every key',
      { patternProperties: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`[\\s\\S]{${580 - i}}[^a]`, true])) },
      () => Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`${'a'.repeat(600)}${i}`, 1])),
    ],
    [
      'a format on a long string again and again',
      { allOf: Array.from({ length: 200 }, () => ({ format: 'email' })) },
      () => `${'a'.repeat(120_000)}@example.com`,
    ],
  ])('stops %s by the work budget: "too costly", having done no more than the budget', (_name, schema, data) => {
    const { problem } = checked(schema, data());
    expect(problem).toBe(TOO_COSTLY);
    // The refused charge that crossed the budget is counted, though its work was not done; one search
    // of a long key is charged before it runs, so that charge can be large. Running through instead
    // would have cost many times the budget.
    expect(schemaCheckMeter.spent()).toBeLessThan(SCHEMA_CHECK_BUDGET * 1.5);
  });

  it('compiles the data of the regex format only within the budget', () => {
    const { problem } = checked(
      { items: { format: 'regex' } },
      Array.from({ length: 4_000 }, (_, i) => `a{590}x${i}`),
    );
    expect(problem).toBe(TOO_COSTLY);
    // The refused charge that crossed the budget is counted, though its work was not done; one search
    // of a long key is charged before it runs, so that charge can be large. Running through instead
    // would have cost many times the budget.
    expect(schemaCheckMeter.spent()).toBeLessThan(SCHEMA_CHECK_BUDGET * 1.5);
  });

  it('reports the first error of a badly invalid value at once (no error is collected past it)', () => {
    const { problem } = checked({ items: { required: Array.from({ length: 2_000 }, (_, i) => `r${i}`) } }, big(5_000, '{}'));
    expect(problem).toBe("/0 must have required property 'r0'");
    // The other 4,999 items (10 million missing properties) were never looked at.
    expect(schemaCheckMeter.spent()).toBeLessThan(SCHEMA_CHECK_BUDGET / 100);
  });

  it('leaves ample room for a large legitimate value: 1,600 records (121 KB) spend under a third of the budget', () => {
    const schema = {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: {
            type: 'object',
            required: ['sku', 'qty'],
            additionalProperties: false,
            properties: {
              sku: { type: 'string', pattern: '^[A-Z0-9-]{3,20}$' },
              qty: { type: 'integer', minimum: 0 },
              note: { type: 'string', maxLength: 200 },
              tags: { type: 'array', items: { enum: ['a', 'b', 'c'] } },
            },
          },
        },
      },
    };
    const data = { items: Array.from({ length: 1_600 }, (_, i) => ({ sku: `SKU-${i}`, qty: i, note: 'n'.repeat(20), tags: ['a', 'b'] })) };
    expect(JSON.stringify(data).length).toBeGreaterThan(120_000);
    expect(checked(schema, data).problem).toBeNull();
    expect(schemaCheckMeter.spent()).toBeGreaterThan(0);
    expect(schemaCheckMeter.spent()).toBeLessThan(SCHEMA_CHECK_BUDGET / 3);
  });

  it("does not spend at definition time (the meta-schema's regex format) nor between checks", () => {
    expect(
      compileJsonSchema(
        JSON.stringify({
          properties: Object.fromEntries(Array.from({ length: SCHEMA_MAX_PATTERNS }, (_, i) => [`p${i}`, { pattern: `^a${i}` }])),
        }),
      ).ok,
    ).toBe(true);
  });
});
