import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { estimateProgramSize } from './estimate-regex-size';

const exact = (source: string) => RE2JS.compile(source).matcher('').programSize();

// RE2 syntax pieces: literals, escapes, classes (with `]` first, escapes and POSIX names inside),
// assertions, quotations and flags, combined with groups, alternations and quantifiers.
const atom = fc.constantFrom(
  'a',
  'é',
  '😀',
  '.',
  '\\.',
  '\\d',
  '\\pL',
  '\\p{Greek}',
  '\\PN',
  '\\x41',
  '\\x{1F600}',
  '\\101',
  '\\n',
  '\\Qa+b\\E',
  '\\Q(\\E',
  '[ab]',
  '[^a]',
  '[]a]',
  '[a\\]b]',
  '[[:alpha:]0-9]',
  '[^\\n]',
  '^',
  '$',
  '\\A',
  '\\z',
  '\\b',
  '\\B',
  '(?i)',
  '(?s)',
  '(?m)',
  '{',
  'a{',
  '{1',
  'x{,2}',
);
const quantifier = fc.constantFrom('*', '+', '?', '*?', '+?', '??', '{2}', '{0}', '{1,3}', '{2,}', '{0,5}?', '{3,3}');
const pattern: fc.Arbitrary<string> = fc.letrec<{ re: string }>((tie) => ({
  re: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    atom,
    fc.tuple(tie('re'), tie('re')).map(([a, b]) => a + b),
    fc.tuple(tie('re'), tie('re')).map(([a, b]) => `${a}|${b}`),
    fc.tuple(tie('re'), quantifier).map(([a, q]) => `(?:${a})${q}`),
    fc.tuple(atom, quantifier).map(([a, q]) => `${a}${q}`),
    tie('re').map((a) => `(${a})`),
    tie('re').map((a) => `(?P<n>${a})`),
    tie('re').map((a) => `(?i:${a})`),
    tie('re').map((a) => `(|${a}|)`),
  ),
})).re;

function compiles(source: string): boolean {
  try {
    RE2JS.compile(source);
    return true;
  } catch {
    return false;
  }
}

describe('estimateProgramSize: an upper bound on re2js programs, read from the text', () => {
  it('is never below the compiled program of a pattern the engine accepts', () => {
    fc.assert(
      fc.property(pattern, (source) => {
        fc.pre(compiles(source));
        expect(estimateProgramSize(source)).toBeGreaterThanOrEqual(exact(source));
      }),
      { numRuns: 3000 },
    );
  });

  it('is close for the patterns people write', () => {
    for (const source of ['^[a-z]+$', '^\\d{5}(-\\d{4})?$', '^.{1,255}$', '(?i)^(red|green|blue)$', '^[A-Z]{3}-[0-9]{1,10}$']) {
      const size = exact(source);
      expect(estimateProgramSize(source), source).toBeGreaterThanOrEqual(size);
      expect(estimateProgramSize(source), source).toBeLessThanOrEqual(size * 2 + 10);
    }
  });

  it('sees a huge program in a short text without compiling it', () => {
    expect(estimateProgramSize('[\\s\\S]{1000}'.repeat(60))).toBeGreaterThanOrEqual(60_000);
    expect(estimateProgramSize('a{1000}'.repeat(300))).toBeGreaterThanOrEqual(300_000);
    expect(estimateProgramSize('(?:a{10}){100}')).toBeGreaterThanOrEqual(1000);
  });

  it('reads deep nesting and unbalanced text without failing', () => {
    expect(estimateProgramSize('('.repeat(100_000) + 'a' + ')'.repeat(100_000))).toBeGreaterThan(100_000);
    for (const source of ['(', ')', '((a)', 'a)b)', '[', '[a', '\\', '\\Q', '(?', '(?P<x', 'a{2', '{}']) {
      expect(estimateProgramSize(source), source).toBeGreaterThan(0);
    }
  });
});

describe('estimateProgramSize on adversarial text', () => {
  // Quadratic before: each `[:` searched the rest of the text for `:]` (300,001 characters took 79 s).
  // The test's timeout is the bound (no timed assertion: machines are noisy); linear takes milliseconds.
  it('reads the text in one linear pass (unclosed named classes and \\p{ escapes)', () => {
    for (const source of [`[${'[:'.repeat(150_000)}`, '\\p{'.repeat(100_000), `[${'[:alpha'.repeat(40_000)}]`]) {
      expect(estimateProgramSize(source)).toBeGreaterThan(0);
    }
  }, 5_000);
});
