import { describe, expect, it } from 'vitest';
import { compileRe2, compileSchemaPattern, isSchemaPattern, REGEX_MAX_PROGRAM_SIZE, type CompiledPattern } from './compile-regex';

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

function schemaPattern(source: string): CompiledPattern {
  const result = compileSchemaPattern(source);
  if (!result.ok) throw new Error(result.message);
  return result.pattern;
}

describe('JSON Schema patterns', () => {
  it('accept the ECMA-262 spellings JSON Schema uses, on RE2', () => {
    expect(schemaPattern('^\\u0041$').test('A')).toBe(true);
    expect(schemaPattern('^(?<word>[a-z]+)$').test('abc')).toBe(true);
  });
  it('are refused where RE2 cannot run them', () => {
    expect(compileSchemaPattern('(?=a)')).toMatchObject({ ok: false, tooLarge: false });
    expect(isSchemaPattern('(?=a)')).toBe(false);
    expect(isSchemaPattern('^[a-z]+$')).toBe(true);
  });
});

/** The largest value a pattern searches: 64 KB (decisions §8.8), here 65,536 one-byte characters. */
const LARGEST_VALUE = 'a'.repeat(65_536);

describe('program bound (decisions §8.11; RE2 refuses programs over its budget, "pattern too large")', () => {
  it('refuses the 720-character pattern whose 60,000-instruction program took 25 s on a 65,000-character value', () => {
    const result = compileRe2('[\\s\\S]{1000}'.repeat(60));
    expect(result).toEqual({
      ok: false,
      tooLarge: true,
      message: `its compiled program has more than 50000 instructions (at most ${REGEX_MAX_PROGRAM_SIZE})`,
    });
  });

  it('names the exact size of a program just over the bound, and accepts one at it', () => {
    expect(compileRe2('[\\s\\S]{599}')).toMatchObject({
      ok: false,
      tooLarge: true,
      message: 'its compiled program has 601 instructions (at most 600)',
    });
    expect(compileRe2('[\\s\\S]{598}')).toMatchObject({ ok: true, pattern: { size: 600 } });
    expect(compileRe2('^.{1,255}$')).toMatchObject({ ok: true, pattern: { size: 513 } });
  });

  it('applies to JSON Schema patterns and the regex format alike', () => {
    expect(compileSchemaPattern('[\\s\\S]{1000}')).toMatchObject({ ok: false, tooLarge: true });
    expect(isSchemaPattern('[\\s\\S]{1000}')).toBe(false);
    expect(isSchemaPattern('[\\s\\S]{500}')).toBe(true);
  });

  it('refuses a pattern of a huge program without compiling it', () => {
    expect(compileRe2('a{1000}'.repeat(40_000)).ok).toBe(false);
  });

  // The costliest shapes of program at the bound, each searching the largest value without a match
  // (a match would end the search early). The bound was chosen so these answer in about 60 ms; how
  // long they take is measured by bench/stress and bench/rules, not asserted here (machines are noisy).
  it.each([
    ['[\\s\\S]{597}[^a]', LARGEST_VALUE],
    ['(?:[a-z]|[0-9]){597}[^a]', LARGEST_VALUE],
    ['a{0,298}[^a]', LARGEST_VALUE],
    ['(?:a|b)*a(?:a|b){594}[^ab]', 'ab'.repeat(32_768)],
    ['[\\s\\S]{597}[^é]', 'é'.repeat(32_768)],
  ])('the worst accepted pattern %s is within the program bound and searches the largest value', (source, text) => {
    const compiled = pattern(source);
    expect(compiled.size).toBeLessThanOrEqual(REGEX_MAX_PROGRAM_SIZE);
    expect(compiled.size).toBeGreaterThan(REGEX_MAX_PROGRAM_SIZE - 10);
    expect(compiled.test(text)).toBe(false);
  });
});
