import { describe, expect, it } from 'vitest';
import { findDuplicateKey } from './find-duplicate-key';

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
