import { describe, expect, it } from 'vitest';
import { checkJsonShape, MAX_JSON_DEPTH } from './json-shape';

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
