import { describe, expect, it } from 'vitest';
import { compileRe2, compileSchemaPattern, isSchemaPattern } from './compile-regex';

function pattern(source: string) {
  const result = compileRe2(source);
  if (!result.ok) throw new Error(result.message);
  return result.pattern;
}

describe('regex on RE2 (decisions §8.11)', () => {
  it('searches the value rather than matching all of it', () => {
    expect(pattern('b').test('abc')).toBe(true);
    expect(pattern('^b').test('abc')).toBe(false);
    expect(pattern('^[a-z]+$').test('abc')).toBe(true);
    expect(pattern('^[a-z]+$').test('abc1')).toBe(false);
  });

  it('anchors $ at the end of the text, not before a final newline', () => {
    expect(pattern('^[a-z]+$').test('abc\n')).toBe(false);
  });

  it('refuses what RE2 cannot run: lookaround and backreferences', () => {
    for (const source of ['(?=a)', '(?!a)', '(?<=a)b', '(?<!a)b', '(a)\\1', '(?<n>a)\\k<n>']) {
      const result = compileRe2(source);
      expect(result.ok, source).toBe(false);
    }
    expect(compileRe2('(').ok).toBe(false);
  });

  it('reports the engine message', () => {
    const result = compileRe2('(?=a)');
    expect(result.ok ? '' : result.message).toContain('(?=');
  });

  it('has RE2 syntax: inline flags and \\z', () => {
    expect(pattern('(?i)^abc$').test('ABC')).toBe(true);
    expect(pattern('a\\z').test('ba')).toBe(true);
    expect(pattern('\\p{Greek}').test('α')).toBe(true);
  });

  it('runs a catastrophic-backtracking pattern in linear time', () => {
    // (a+)+$ against 50,000 'a' + 'b' takes a backtracking engine forever; RE2 answers at once.
    const evil = pattern('(a+)+$');
    expect(evil.test(`${'a'.repeat(50_000)}b`)).toBe(false);
    expect(evil.test('a'.repeat(50_000))).toBe(true);
  });

  it('counts code points: . matches one astral character', () => {
    expect(pattern('^.$').test('😀')).toBe(true);
  });
});

describe('JSON Schema patterns', () => {
  it('accept the ECMA-262 spellings JSON Schema uses, on RE2', () => {
    expect(compileSchemaPattern('^\\u0041$').test('A')).toBe(true);
    expect(compileSchemaPattern('^(?<word>[a-z]+)$').test('abc')).toBe(true);
  });
  it('throw where RE2 cannot run them', () => {
    expect(() => compileSchemaPattern('(?=a)')).toThrow();
    expect(isSchemaPattern('(?=a)')).toBe(false);
    expect(isSchemaPattern('^[a-z]+$')).toBe(true);
  });
});
