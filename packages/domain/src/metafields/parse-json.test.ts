import { describe, expect, it } from 'vitest';
import { JsonNumber, describeJsonFailure, isJsonObject, jsonDepthExceeds, parseStrictJson, type JsonNode } from './parse-json';

function parsed(text: string, depth = 10): unknown {
  const result = parseStrictJson(text, depth);
  if (!result.ok) throw new Error(`did not parse: ${text}`);
  return result.value;
}

describe('parseStrictJson', () => {
  it('reads every JSON value kind', () => {
    expect(parsed(' [ "a" , true , false , null , "\\u00e9\\n\\"" ] ')).toEqual(['a', true, false, null, 'é\n"']);
    const object = parsed('{"a":{"b":[]}}');
    expect(isJsonObject(object as never)).toBe(true);
    expect(JSON.stringify(object)).toBe('{"a":{"b":[]}}');
  });

  it('keeps numbers as written', () => {
    const [a, b, c, d] = parsed('[1.10, -0, 1e2, 1.00000000000000001]') as JsonNumber[];
    expect(a).toBeInstanceOf(JsonNumber);
    expect([a?.text, b?.text, c?.text, d?.text]).toEqual(['1.10', '-0', '1e2', '1.00000000000000001']);
  });

  it('refuses duplicate keys instead of keeping the last', () => {
    const result = parseStrictJson('{"value":1,"value":2}', 3);
    expect(result).toEqual({ ok: false, reason: 'duplicate-key', key: 'value' });
    if (!result.ok) expect(describeJsonFailure(result)).toBe('is not valid JSON (duplicate key "value")');
  });

  it('refuses what JSON.parse refuses', () => {
    for (const bad of [
      '',
      '[',
      '[1,]',
      '{"a":1,}',
      "['a']",
      '01',
      '+1',
      '.5',
      '1.',
      'NaN',
      'tru',
      '"a',
      '"\t"',
      '"\\x"',
      '"\\u12"',
      '[1] x',
      '{a:1}',
      '[1 2]',
    ]) {
      expect(parseStrictJson(bad, 5).ok, bad).toBe(false);
      expect(() => JSON.parse(bad), bad).toThrow();
    }
  });

  it('bounds nesting', () => {
    expect(parseStrictJson('[[1]]', 2).ok).toBe(true);
    const deep = parseStrictJson('[[[1]]]', 2);
    expect(deep).toEqual({ ok: false, reason: 'too-deep' });
    if (!deep.ok) expect(describeJsonFailure(deep)).toBe('is nested too deeply');
    expect(parseStrictJson('{"a":{"b":{}}}', 2).ok).toBe(false);
  });

  it('keeps keys like __proto__ as plain data', () => {
    const value = parsed('{"__proto__":1}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(value['__proto__']).toBeInstanceOf(JsonNumber);
  });

  it('lets objects inherit nothing', () => {
    const value = parsed('{"a":1}') as Record<string, unknown>;
    for (const name of ['toString', 'constructor', 'hasOwnProperty', 'valueOf']) expect(value[name], name).toBeUndefined();
    expect('toString' in value).toBe(false);
    expect(isJsonObject(parsed('{}') as JsonNode)).toBe(true);
  });
});

describe('jsonDepthExceeds', () => {
  it('measures container nesting outside strings', () => {
    expect(jsonDepthExceeds('[[[]]]', 3)).toBe(false);
    expect(jsonDepthExceeds('[[[[]]]]', 3)).toBe(true);
    expect(jsonDepthExceeds('["[[[[[", "\\"[[[["]', 1)).toBe(false);
    expect(jsonDepthExceeds('{"a":[{"b":1}]}', 2)).toBe(true);
  });
});
