import { describe, expect, it } from 'vitest';
import { checkJsonShape, findDuplicateKey, MAX_JSON_DEPTH } from './json-shape';

describe(checkJsonShape.name, () => {
  const nested = (depth: number): unknown => {
    let value: unknown = 1;
    for (let i = 0; i < depth; i++) value = [value];
    return value;
  };

  it('accepts ordinary bodies, including paired surrogates (emoji)', () => {
    expect(checkJsonShape({ metafield: { value: 'ok \u{1F600}', list: [1, 'a', null, { b: true }] } })).toBeUndefined();
    expect(checkJsonShape(nested(MAX_JSON_DEPTH))).toBeUndefined();
  });

  it('refuses nesting deeper than the bound, without overflowing the stack itself', () => {
    expect(checkJsonShape(nested(MAX_JSON_DEPTH + 1))).toMatch(/nested deeper than 64 levels/);
    expect(checkJsonShape(JSON.parse('['.repeat(200_000) + ']'.repeat(200_000)))).toMatch(/nested deeper/);
  });

  it('refuses unpaired surrogates in strings and in keys', () => {
    expect(checkJsonShape(JSON.parse('{"name":"a\\ud800b"}'))).toMatch(/unpaired UTF-16 surrogate/);
    expect(checkJsonShape(JSON.parse('["\\udc00"]'))).toMatch(/unpaired/);
    expect(checkJsonShape(JSON.parse('{"\\ud800":1}'))).toMatch(/a key holds/);
  });
});

describe(findDuplicateKey.name, () => {
  it('finds a key given twice in one object, at any depth, also when spelled with escapes', () => {
    expect(findDuplicateKey('{"a":1,"a":2}')).toBe('a');
    expect(findDuplicateKey('{"metafields":[{"owner_id":"1","value":"x","value":"y"}]}')).toBe('value');
    expect(findDuplicateKey('{"a":1,"b":{"c":[1,{"d":1,"e":2,"d":3}]}}')).toBe('d');
    expect(findDuplicateKey('{"a":1,"\\u0061":2}')).toBe('a');
    expect(findDuplicateKey('{"x\\"":1,"x\\"":2}')).toBe('x"');
  });

  it('accepts equal keys in different objects, strings that look like keys, and escaped quotes', () => {
    expect(findDuplicateKey('{"a":{"a":1},"b":{"a":2}}')).toBeUndefined();
    expect(findDuplicateKey('[{"a":1},{"a":1}]')).toBeUndefined();
    expect(findDuplicateKey('{"a":"\\"a\\":1,","b":["a","a"]}')).toBeUndefined();
    expect(findDuplicateKey('{"a\\\\":1,"a":2}')).toBeUndefined();
    expect(findDuplicateKey('"a"')).toBeUndefined();
    expect(findDuplicateKey('{}')).toBeUndefined();
  });

  it('agrees with a reference on every object of up to 3 keys from a small alphabet, with nested values', () => {
    const spellings = ['a', 'b', '\\u0061', 'é', '\\"', 'a\\\\'];
    const values = ['1', '"a"', '{"a":1,"b":2}', '[{"a":1},{"a":2}]', '{"b":{"b":1,"b":2}}'];
    let checked = 0;
    const walk = (keys: string[]) => {
      if (keys.length > 0) {
        for (const value of values) {
          const text = `{${keys.map((k) => `"${k}":${value}`).join(',')}}`;
          const decoded = keys.map((k) => JSON.parse(`"${k}"`) as string);
          const expected = new Set(decoded).size !== decoded.length || value.includes('"b":1,"b"');
          expect(findDuplicateKey(text) !== undefined, text).toBe(expected);
          checked++;
        }
      }
      if (keys.length < 3) for (const k of spellings) walk([...keys, k]);
    };
    walk([]);
    expect(checked).toBe(5 * (6 + 36 + 216));
  });
});
