import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { compileDfa } from './match-dfa';

const compileDfaTest = (re: RE2JS) => compileDfa(re)?.test;

const dfa = (source: string) => {
  const re = RE2JS.compile(source);
  const test = compileDfaTest(re);
  if (!test) throw new Error(`no DFA for ${source}`);
  return test;
};

// Pieces of RE2 syntax that exercise every instruction and empty-width flag the DFA runs.
const atom = fc.constantFrom(
  'a',
  'b',
  'c',
  '_',
  '1',
  ' ',
  '\\n',
  'é',
  '😀',
  '.',
  '\\d',
  '\\w',
  '\\s',
  '\\W',
  '[ab]',
  '[^a]',
  '[a-c1]',
  '\\b',
  '\\B',
  '^',
  '$',
  '\\A',
  '\\z',
  '(?s:.)',
  '\\pL',
  '[[:alpha:]]',
  '(?:)',
);
const pattern: fc.Arbitrary<string> = fc.letrec<{ re: string }>((tie) => ({
  re: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    atom,
    fc.tuple(tie('re'), tie('re')).map(([a, b]) => a + b),
    fc.tuple(tie('re'), tie('re')).map(([a, b]) => `(?:${a}|${b})`),
    fc.tuple(tie('re'), fc.constantFrom('*', '+', '?', '{2}', '{1,3}', '*?', '+?', '{0,2}')).map(([a, q]) => `(?:${a})${q}`),
    tie('re').map((a) => `(${a})`),
    tie('re').map((a) => `(?m:${a})`),
  ),
})).re;
const text = fc
  .array(fc.constantFrom('a', 'b', 'c', '_', '1', ' ', '\n', 'é', '😀', 'Z', '-'), { maxLength: 14 })
  .map((chars) => chars.join(''));

describe(compileDfa.name, () => {
  it('answers exactly as re2js on generated patterns and texts (search semantics)', () => {
    let runs = 0;
    let compiled = 0;
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 8 }), (source, texts) => {
        runs++;
        const re = RE2JS.compile(source);
        const test = compileDfaTest(re);
        if (!test) return;
        compiled++;
        for (const s of texts) expect(test(s), `/${source}/ on ${JSON.stringify(s)}`).toBe(re.test(s));
      }),
      { numRuns: 3000 },
    );
    // The generator has no case folding: nearly every pattern runs on the DFA (if re2js's program
    // ever became unreadable to it, this fails rather than the comparison silently checking nothing).
    expect(compiled / runs).toBeGreaterThan(0.95);
  });

  it('searches the value: an unanchored pattern matches anywhere, an anchored one only where anchored', () => {
    const code = dfa('^[A-Z]{2,4}-[0-9]{3,6}$');
    expect(code('AB-123')).toBe(true);
    expect(code('ABCD-123456')).toBe(true);
    expect(code('xAB-123')).toBe(false);
    expect(code('AB-1234567')).toBe(false);
    expect(code('')).toBe(false);
    const inside = dfa('[0-9]{3}');
    expect(inside('order 123 shipped')).toBe(true);
    expect(inside('order 12 shipped')).toBe(false);
  });

  it('honours line, text and word boundaries', () => {
    expect(dfa('(?m)^b$')('a\nb\nc')).toBe(true);
    expect(dfa('^b$')('a\nb\nc')).toBe(false);
    expect(dfa('\\bcat\\b')('a cat sat')).toBe(true);
    expect(dfa('\\bcat\\b')('concatenate')).toBe(false);
    expect(dfa('\\Bcat\\B')('concatenate')).toBe(true);
    expect(dfa('a\\z')('ba')).toBe(true);
    expect(dfa('a\\z')('ab')).toBe(false);
  });

  it('reads characters outside the BMP as one code point', () => {
    expect(dfa('^.$')('😀')).toBe(true);
    expect(dfa('^..$')('😀')).toBe(false);
    expect(dfa('^\\pL+$')('Ωmega')).toBe(true);
  });

  it('stays linear on patterns that make backtracking engines explode', () => {
    const test = dfa('(a+)+$');
    const evil = `${'a'.repeat(50_000)}!`;
    expect(test(evil)).toBe(false);
    expect(test('aaa')).toBe(true);
  });

  it('leaves to re2js what it does not run, or cannot build whole within its budget, decided by the pattern alone', () => {
    expect(compileDfaTest(RE2JS.compile('(?i)abc'))).toBeUndefined();
    // (a|b)*a(a|b){12}: a DFA needs 2^13 states for it, more than the budget; built whole when it
    // is compiled, so no text searched later moves it from one engine to the other.
    expect(compileDfa(RE2JS.compile('(?:a|b)*a(?:a|b){12}'))).toBeUndefined();
    const small = compileDfa(RE2JS.compile('(?:a|b)*a(?:a|b){5}'))!;
    expect(small.test('xxabbbbbxx')).toBe(true);
    expect(small.bytes).toBeGreaterThan(64 * 3 * 4);
  });

  it('takes the work and cells of its build from an allowance shared by several patterns', () => {
    const shared = { work: 1_000_000, cells: 1_000_000 };
    expect(compileDfa(RE2JS.compile('^[a-z]{1,50}$'), shared)).toBeDefined();
    expect(shared.work).toBeLessThan(1_000_000);
    expect(shared.cells).toBeLessThan(1_000_000);
    // Nothing left: the next pattern stays on re2js.
    expect(compileDfa(RE2JS.compile('^[a-z]{1,50}$'), { work: 0, cells: 1_000_000 })).toBeUndefined();
  });
});
