import { describe, expect, it } from 'vitest';
import {
  SCHEMA_MAX_DEPTH,
  SCHEMA_MAX_LENGTH,
  SCHEMA_MAX_NODES,
  SCHEMA_MAX_NODES_UNEVALUATED,
  SCHEMA_MAX_PATTERN_PROGRAM,
  SCHEMA_MAX_PATTERNS,
  SCHEMA_VALUE_MAX_DEPTH,
  compileJsonSchema,
} from './compile-schema';
import { check, compiled, doublingChain, refused } from './compile-schema.test-support';

describe('schema rule: JSON Schema 2020-12 by default (decisions §8.11)', () => {
  it('validates with 2020-12 keywords', () => {
    const schema = { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'integer' } };
    expect(check(schema, ['a', 1, 2])).toBeNull();
    expect(check(schema, ['a', 'b'])).toBe('/1 must be integer');
    expect(check({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', required: ['a'] }, {})).toBe(
      "must have required property 'a'",
    );
  });

  it('accepts draft-07 through $schema, with draft-07 meaning', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      items: [{ type: 'string' }],
      additionalItems: false,
      definitions: { n: { type: 'integer' } },
      properties: { n: { $ref: '#/definitions/n' } },
    };
    expect(check(schema, ['a'])).toBeNull();
    expect(check(schema, ['a', 'b'])).not.toBeNull();
    expect(check(schema, { n: 'x' })).toBe('/n must be integer');
    // The same array-form items is invalid in 2020-12.
    expect(refused(JSON.stringify({ items: [{ type: 'string' }] }))).toMatch(/^is not a valid JSON Schema: /);
  });

  it('refuses other dialects', () => {
    expect(refused('{"$schema":"http://json-schema.org/draft-04/schema#"}')).toBe(
      'has an unsupported $schema "http://json-schema.org/draft-04/schema#" (use JSON Schema 2020-12 or draft-07)',
    );
    expect(refused('{"$schema":5}')).toMatch(/unsupported \$schema 5/);
  });

  it('refuses text that is not a schema', () => {
    expect(refused('{')).toBe('is not valid JSON');
    expect(refused('[1]')).toBe('must be a JSON Schema (an object or a boolean)');
    expect(refused('"x"')).toBe('must be a JSON Schema (an object or a boolean)');
    expect(refused('{"type":"strin"}')).toBe('is not a valid JSON Schema: /type must be equal to one of the allowed values');
    expect(refused('{"minimum":"1"}')).toMatch(/^is not a valid JSON Schema: \/minimum must be number/);
  });

  it('accepts boolean schemas', () => {
    expect(check(true, 1)).toBeNull();
    expect(check(false, 1)).not.toBeNull();
  });

  it('keeps $data off', () => {
    expect(refused(JSON.stringify({ properties: { a: { maximum: { $data: '1/b' } } } }))).toMatch(
      /^is not a valid JSON Schema: .*maximum must be number/,
    );
  });

  it('never fetches a remote $ref, nor resolves into another definition', () => {
    expect(refused('{"$ref":"https://example.com/schema.json"}')).toMatch(/^is not a valid JSON Schema: can't resolve reference/);
    expect(compileJsonSchema('{"$id":"https://example.com/s","type":"string"}').ok).toBe(true);
    // A second definition with the same $id compiles on its own and keeps its own meaning.
    const second = compiled({ $id: 'https://example.com/s', type: 'integer' });
    expect(second(1, '1')).toBeNull();
    expect(second('x', '"x"')).not.toBeNull();
    expect(refused('{"$ref":"https://example.com/s"}')).toMatch(/can't resolve reference/);
  });

  it('refuses asynchronous schemas', () => {
    expect(refused('{"$async":true,"type":"object"}')).toBe('must not be asynchronous ($async)');
  });

  it('checks required properties on own properties only', () => {
    expect(check({ required: ['toString'] }, {})).toBe("must have required property 'toString'");
  });
});

describe('schema patterns run on RE2, never on JS RegExp (decisions §8.11)', () => {
  it('pattern, patternProperties and the regex format use RE2 syntax', () => {
    // (?i) is RE2 syntax JS RegExp rejects: these pass only if RE2 ran them.
    expect(check({ pattern: '(?i)^abc$' }, 'ABC')).toBeNull();
    expect(check({ patternProperties: { '(?i)^x': { type: 'integer' } } }, { X: 'no' })).toBe('/X must be integer');
    expect(check({ format: 'regex' }, '(?i)a')).toBeNull();
    expect(check({ format: 'regex' }, '(?=a)')).toBe('must match format "regex"');
  });

  it("holds every pattern to the regex rule's program bound, and all of them together to SCHEMA_MAX_PATTERN_PROGRAM (decisions §8.11)", () => {
    expect(refused(JSON.stringify({ pattern: '[\\s\\S]{1000}'.repeat(60) }))).toMatch(
      /^has a pattern too large, .*: its compiled program has more than 50000 instructions \(at most 600\)$/,
    );
    expect(refused(JSON.stringify({ properties: { a: { pattern: '[\\s\\S]{1000}' } } }))).toMatch(
      /its compiled program has 1002 instructions \(at most 600\)$/,
    );
    expect(refused(JSON.stringify({ patternProperties: { '[\\s\\S]{1000}': true } }))).toMatch(/^has a pattern too large/);
    const many = (n: number) =>
      JSON.stringify({ anyOf: Array.from({ length: n }, (_, i) => ({ pattern: `[\\s\\S]{${580 - (i % 50)}}x${i}` })) });
    expect(compileJsonSchema(many(30)).ok).toBe(true);
    expect(refused(many(40))).toBe(`has patterns too large to compile (at most ${SCHEMA_MAX_PATTERN_PROGRAM} instructions in all)`);
  });

  it('refuses at definition time a pattern RE2 cannot run', () => {
    expect(refused('{"pattern":"(?=a)"}')).toMatch(/^is not a valid JSON Schema: .*\(\?=/);
    expect(refused('{"$schema":"http://json-schema.org/draft-07/schema#","pattern":"(?=a)"}')).toMatch(
      /^is not a valid JSON Schema: .*\(\?=/,
    );
    expect(refused('{"patternProperties":{"(a)\\\\1":{}}}')).toMatch(/^is not a valid JSON Schema: /);
  });

  it('keeps patterns apart (each compiled pattern is its own)', () => {
    const run = compiled({ properties: { a: { pattern: '^x' }, b: { pattern: '^y' } } });
    expect(run({ a: 'x', b: 'y' }, '')).toBeNull();
    expect(run({ a: 'x', b: 'x' }, '')).toBe('/b must match pattern "^y"');
  });

  it('runs a catastrophic-backtracking pattern in linear time', () => {
    expect(check({ pattern: '(a+)+$' }, `${'a'.repeat(50_000)}b`)).toBe('must match pattern "(a+)+$"');
  });
});

describe('schema bounds', () => {
  it('caps the text size at the 300,000 characters of any rule value (spec Limits; code points)', () => {
    expect(SCHEMA_MAX_LENGTH).toBe(300_000);
    const padded = `{"description":${JSON.stringify('x'.repeat(SCHEMA_MAX_LENGTH - 18))}}`;
    expect(padded.length).toBe(SCHEMA_MAX_LENGTH);
    expect(compileJsonSchema(padded).ok).toBe(true);
    expect(refused(`${padded} `)).toBe('is too long for a schema (maximum is 300000 characters)');
    const astral = `{"description":${JSON.stringify('😀'.repeat(SCHEMA_MAX_LENGTH - 18))}}`;
    expect(compileJsonSchema(astral).ok).toBe(true);
  });

  it('caps the nesting depth', () => {
    const nest = (depth: number): unknown => (depth === 1 ? {} : { not: nest(depth - 1) });
    expect(compileJsonSchema(JSON.stringify(nest(SCHEMA_MAX_DEPTH))).ok).toBe(true);
    expect(refused(JSON.stringify(nest(SCHEMA_MAX_DEPTH + 1)))).toBe(`is nested too deeply (maximum depth is ${SCHEMA_MAX_DEPTH})`);
  });

  it('caps the number of objects and arrays', () => {
    const wide = (n: number) => ({ properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, {}])) });
    expect(compileJsonSchema(JSON.stringify(wide(SCHEMA_MAX_NODES - 2))).ok).toBe(true);
    expect(refused(JSON.stringify(wide(SCHEMA_MAX_NODES)))).toBe(`is too large (at most ${SCHEMA_MAX_NODES} objects and arrays)`);
  });

  it('compiles a legitimate schema of nearly 300,000 characters in bounded time', () => {
    const described = (i: number) => ({
      type: 'string',
      maxLength: 40,
      description: `Field ${i} of the product specification sheet. ${'Long explanation. '.repeat(50)}`,
    });
    const text = JSON.stringify({
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: SCHEMA_MAX_NODES - 2 }, (_, i) => [`p${i}`, described(i)])),
    });
    expect(text.length).toBeGreaterThan(290_000);
    expect(text.length).toBeLessThanOrEqual(SCHEMA_MAX_LENGTH);
    // Measured at about 0.1 s on the 2-core machine the guide describes (2,900 properties: 1 s).
    const result = compileJsonSchema(text);
    expect(result.ok && result.check({ p1: 'short', p2: 'x'.repeat(41) }, '')).toBe('/p2 must NOT have more than 40 characters');
  });

  it(`refuses more than ${SCHEMA_MAX_PATTERNS} distinct patterns (1,400 patternProperties held 15 MB, issue 8)`, () => {
    const patterns = (n: number) =>
      JSON.stringify({ patternProperties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`^k${i}$`, true])) });
    expect(compileJsonSchema(patterns(SCHEMA_MAX_PATTERNS)).ok).toBe(true);
    expect(refused(patterns(SCHEMA_MAX_PATTERNS + 1))).toBe(`has too many distinct patterns (at most ${SCHEMA_MAX_PATTERNS})`);
    expect(refused(patterns(1_400))).toBe(`has too many distinct patterns (at most ${SCHEMA_MAX_PATTERNS})`);
  });

  it('estimates the memory a compiled schema holds from what it holds', () => {
    const small = compileJsonSchema('{"type":"string"}');
    const patterns = compileJsonSchema(
      JSON.stringify({
        patternProperties: Object.fromEntries(Array.from({ length: SCHEMA_MAX_PATTERNS }, (_, i) => [`^k${i}[a-z]{1,20}$`, true])),
      }),
    );
    expect(small.ok && patterns.ok).toBe(true);
    if (!small.ok || !patterns.ok) return;
    expect(small.bytes).toBeLessThan(20_000);
    // Each pattern: re2js's program (about 9 KB) and its DFA's tables.
    expect(patterns.bytes).toBeGreaterThan(SCHEMA_MAX_PATTERNS * 9_000);
  });

  it('compiles a definition used in many places once, as a call (inlined, 400 x 400 properties took 70 s)', () => {
    const big = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 140 }, (_, i) => [`p${i}`, { type: 'integer', minimum: i }])),
    };
    const schema = {
      $defs: { big },
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 140 }, (_, i) => [`r${i}`, { $ref: '#/$defs/big' }])),
    };
    const run = compiled(schema);
    expect(run({ r3: { p7: 6 } }, '')).toBe('/r3/p7 must be >= 7');
  });

  it('holds unevaluatedProperties and unevaluatedItems, whose compile grows faster, to SCHEMA_MAX_NODES_UNEVALUATED', () => {
    const spread = (n: number) =>
      JSON.stringify({ allOf: Array.from({ length: n }, (_, i) => ({ properties: { [`p${i}`]: true } })), unevaluatedProperties: false });
    const fits = compileJsonSchema(spread(SCHEMA_MAX_NODES_UNEVALUATED / 2 - 1));
    expect(fits.ok && fits.check({ p1: 1, other: 2 }, '')).toBe('must NOT have unevaluated properties');
    expect(refused(spread(SCHEMA_MAX_NODES_UNEVALUATED / 2 + 1))).toBe(
      `is too large for unevaluatedProperties or unevaluatedItems (at most ${SCHEMA_MAX_NODES_UNEVALUATED} objects and arrays)`,
    );
  });

  it('refuses a $ref into data or at a map of subschemas (it would run uncounted)', () => {
    expect(refused(JSON.stringify({ enum: [{ type: 'string' }], $ref: '#/enum/0' }))).toBe(
      'has a $ref into data, not a subschema: "#/enum/0"',
    );
    expect(refused(JSON.stringify({ const: { a: {} }, $ref: '#/const/a' }))).toMatch(/^has a \$ref into data/);
    expect(refused(JSON.stringify({ properties: { a: {} }, $ref: '#/properties' }))).toBe(
      'has a $ref to a map of subschemas, not a subschema: "#/properties"',
    );
    // Into a map's entry, a definition, or an unknown keyword's subschema: fine.
    expect(check({ properties: { enum: { type: 'string' } }, items: { $ref: '#/properties/enum' } }, [1])).toBe('/0 must be string');
    expect(check({ $defs: { n: { type: 'integer' } }, 'x-extra': { not: { $ref: '#/$defs/n' } }, $ref: '#/x-extra' }, 1)).toBe(
      'must NOT be valid',
    );
  });

  it('refuses a $ref that resolves to anything but a subschema, however it is written (it would run uncounted)', () => {
    const notSubschema = /^has a \$ref to something that is not a subschema: /;
    expect(refused(JSON.stringify({ 'x-list': [{ type: 'string' }], $ref: '#/x-list' }))).toBe(
      'has a $ref to something that is not a subschema: "#/x-list"',
    );
    expect(refused(JSON.stringify({ title: 'a', $ref: '#/title' }))).toMatch(notSubschema);
    // Relative to an embedded $id, where the pointer's words alone cannot tell.
    expect(
      refused(JSON.stringify({ $defs: { a: { $id: 'https://example.com/a', 'x-list': [{}] } }, $ref: 'https://example.com/a#/x-list' })),
    ).toMatch(notSubschema);
    // default and examples are data, kept as written: never a subschema.
    expect(refused(JSON.stringify({ default: { type: 'string' }, $ref: '#/default' }))).toBe(
      'has a $ref into data, not a subschema: "#/default"',
    );
    expect(refused(JSON.stringify({ examples: [{ type: 'string' }], $ref: '#/examples/0' }))).toMatch(/^has a \$ref into data/);
  });

  it('still follows a $ref to a subschema: $defs, definitions, an embedded $id, an anchor, nested arrays', () => {
    expect(check({ $defs: { n: { type: 'integer' } }, properties: { a: { $ref: '#/$defs/n' } } }, { a: 'x' })).toBe('/a must be integer');
    expect(
      check(
        { $schema: 'http://json-schema.org/draft-07/schema#', definitions: { n: { type: 'integer' } }, items: { $ref: '#/definitions/n' } },
        ['x'],
      ),
    ).toBe('/0 must be integer');
    expect(
      check(
        {
          $defs: { a: { $id: 'https://example.com/a', $defs: { s: { type: 'string' } }, $ref: '#/$defs/s' } },
          $ref: 'https://example.com/a',
        },
        1,
      ),
    ).toBe('must be string');
    expect(check({ $defs: { s: { $anchor: 'str', type: 'string' } }, items: { $ref: '#str' } }, [1])).toBe('/0 must be string');
    expect(check(doublingChain(['x', '0'], 3), 1)).toBe('must be string');
    expect(check(doublingChain(['x', '0'], 3), 'x')).toBeNull();
  });

  it('refuses, rather than walks, values nested deeper than it checks', () => {
    const run = compiled({});
    const deep = `${'['.repeat(SCHEMA_VALUE_MAX_DEPTH + 1)}${']'.repeat(SCHEMA_VALUE_MAX_DEPTH + 1)}`;
    expect(run(JSON.parse(deep), deep)).toBe(`is nested too deeply to check (maximum depth is ${SCHEMA_VALUE_MAX_DEPTH})`);
    const ok = `${'['.repeat(SCHEMA_VALUE_MAX_DEPTH)}${']'.repeat(SCHEMA_VALUE_MAX_DEPTH)}`;
    expect(run(JSON.parse(ok), ok)).toBeNull();
  });

  it('checks uniqueItems by JSON equality without quadratic work', () => {
    expect(
      check({ uniqueItems: true }, [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ]),
    ).toBe('must NOT have duplicate items');
    expect(check({ uniqueItems: true }, [1, 1.0])).toBe('must NOT have duplicate items');
    expect(check({ uniqueItems: true }, [1, '1', [1], { '1': 1 }])).toBeNull();
    expect(check({ uniqueItems: false }, [1, 1])).toBeNull();
    const many = Array.from({ length: 40_000 }, (_, i) => ({ i }));
    expect(check({ uniqueItems: true }, many)).toBeNull();
  });

  it('counts maxLength and minLength in code points, before pattern as Ajv does', () => {
    const faces = '\u{1F600}\u{1F600}\u{1F600}';
    expect(check({ maxLength: 3 }, faces)).toBeNull();
    expect(check({ maxLength: 2 }, faces)).toBe('must NOT have more than 2 characters');
    expect(check({ minLength: 3 }, faces)).toBeNull();
    expect(check({ minLength: 4 }, faces)).toBe('must NOT have fewer than 4 characters');
    expect(check({ minLength: 4 }, 'abcd')).toBeNull();
    expect(check({ maxLength: 1, pattern: '^a' }, 'bb')).toBe('must NOT have more than 1 characters');
    expect(check({ pattern: '^a', minLength: 3 }, 'bb')).toBe('must NOT have fewer than 3 characters');
  });

  it('compares const and enum by JSON equality, in the place Ajv runs them', () => {
    expect(check({ enum: [{ a: 1, b: [1, { c: null }] }] }, { b: [1, { c: null }], a: 1 })).toBeNull();
    expect(check({ const: [1, { a: '1' }] }, [1, { a: 1 }])).toBe('must be equal to constant');
    expect(check({ enum: ['a', 1, null] }, 1)).toBeNull();
    // Keys named like what a plain object inherits are data: fast-deep-equal called them (a TypeError).
    expect(check({ enum: [{ a: 1 }] }, { valueOf: 1 })).toBe('must be equal to one of the allowed values');
    expect(check({ const: { toString: 'x' } }, { toString: 'x' })).toBeNull();
    expect(check({ enum: [{ constructor: 1 }] }, {})).toBe('must be equal to one of the allowed values');
    // Before not, anyOf and the others: the first error stays the one Ajv reports first.
    expect(check({ enum: ['a'], not: {} }, 'b')).toBe('must be equal to one of the allowed values');
    expect(check({ const: 'a', anyOf: [{ type: 'number' }] }, 'b')).toBe('must be equal to constant');
    expect(refused('{"enum":[]}')).toBe('is not a valid JSON Schema: enum must have non-empty array');
  });
});
