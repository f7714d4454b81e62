import { describe, expect, it } from 'vitest';
import { SCHEMA_MAX_DEPTH, SCHEMA_MAX_LENGTH, SCHEMA_MAX_NODES, SCHEMA_VALUE_MAX_DEPTH, compileJsonSchema, type SchemaCheck } from './compile-schema';

function compiled(schema: unknown): SchemaCheck {
  const result = compileJsonSchema(JSON.stringify(schema));
  if (!result.ok) throw new Error(result.message);
  return result.check;
}

function refused(text: string): string {
  const result = compileJsonSchema(text);
  if (result.ok) throw new Error(`compiled: ${text}`);
  return result.message;
}

const check = (schema: unknown, data: unknown) => compiled(schema)(data, JSON.stringify(data));

describe('schema rule: JSON Schema 2020-12 by default (decisions §8.11)', () => {
  it('validates with 2020-12 keywords', () => {
    const schema = { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'integer' } };
    expect(check(schema, ['a', 1, 2])).toBeNull();
    expect(check(schema, ['a', 'b'])).toBe('/1 must be integer');
    expect(check({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', required: ['a'] }, {})).toBe("must have required property 'a'");
  });

  it('accepts draft-07 through $schema, with draft-07 meaning', () => {
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', items: [{ type: 'string' }], additionalItems: false, definitions: { n: { type: 'integer' } }, properties: { n: { $ref: '#/definitions/n' } } };
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
    expect(refused(JSON.stringify({ properties: { a: { maximum: { $data: '1/b' } } } }))).toMatch(/^is not a valid JSON Schema: .*maximum must be number/);
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

  it('refuses at definition time a pattern RE2 cannot run', () => {
    expect(refused('{"pattern":"(?=a)"}')).toMatch(/^is not a valid JSON Schema: .*\(\?=/);
    expect(refused('{"$schema":"http://json-schema.org/draft-07/schema#","pattern":"(?=a)"}')).toMatch(/^is not a valid JSON Schema: .*\(\?=/);
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
  it('caps the text size', () => {
    expect(SCHEMA_MAX_LENGTH).toBe(65536);
    const padded = `{"description":${JSON.stringify('x'.repeat(SCHEMA_MAX_LENGTH - 18))}}`;
    expect(padded.length).toBe(SCHEMA_MAX_LENGTH);
    expect(compileJsonSchema(padded).ok).toBe(true);
    expect(refused(`${padded} `)).toBe('is too long for a schema (maximum is 65536 characters)');
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

  it('refuses, rather than walks, values nested deeper than it checks', () => {
    const run = compiled({});
    const deep = `${'['.repeat(SCHEMA_VALUE_MAX_DEPTH + 1)}${']'.repeat(SCHEMA_VALUE_MAX_DEPTH + 1)}`;
    expect(run(JSON.parse(deep), deep)).toBe(`is nested too deeply to check (maximum depth is ${SCHEMA_VALUE_MAX_DEPTH})`);
    const ok = `${'['.repeat(SCHEMA_VALUE_MAX_DEPTH)}${']'.repeat(SCHEMA_VALUE_MAX_DEPTH)}`;
    expect(run(JSON.parse(ok), ok)).toBeNull();
  });

  it('checks uniqueItems by JSON equality without quadratic work', () => {
    expect(check({ uniqueItems: true }, [{ a: 1, b: 2 }, { b: 2, a: 1 }])).toBe('must NOT have duplicate items');
    expect(check({ uniqueItems: true }, [1, 1.0])).toBe('must NOT have duplicate items');
    expect(check({ uniqueItems: true }, [1, '1', [1], { '1': 1 }])).toBeNull();
    expect(check({ uniqueItems: false }, [1, 1])).toBeNull();
    const many = Array.from({ length: 40_000 }, (_, i) => ({ i }));
    expect(check({ uniqueItems: true }, many)).toBeNull();
  });
});
