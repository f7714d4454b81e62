import { describe, expect, it } from 'vitest';
import { compileRe2, compileSchemaPattern, DFA_UNITS_PER_CHAR, RE2JS_UNITS_PER_INSTRUCTION_CHAR } from './compile-regex';
import { compileValidator, RULES_ONLY, type CheckMeter } from './compile-validator';
import { VALUE_CHECK_BUDGET, VALUE_UNITS_PER_CHAR } from './schema-check-budget';

// decisions §8.11: every search is charged at the measured rate of the engine that runs it, before
// it runs, and one value's check may spend VALUE_CHECK_BUDGET units. The security review (issue 8,
// finding 2) measured `(?i)(a|b)*a(a|b){195}x` at 0.36 s per 64 KB value on re2js, 8.9 s for a bulk
// set of 25, and the same pattern in a JSON schema at 11 s: both were charged as if the DFA ran them.

const REVIEWER = '(?i)(a|b)*a(a|b){195}x';
const LARGEST_TEXT = 'ab'.repeat(32_768);

function pattern(source: string) {
  const result = compileRe2(source);
  if (!result.ok) throw new Error(result.message);
  return result.pattern;
}

function judge(type: string, validations: { name: string; value: string }[], raw: string) {
  const meter: CheckMeter = { spent: 0 };
  const result = compileValidator({ type, validations })(raw, { ...RULES_ONLY, meter });
  return { messages: result.ok ? [] : result.issues.map((i) => i.message), spent: meter.spent };
}

describe('the cost of a search (decisions §8.11)', () => {
  it('charges case-folded patterns at re2js rate per instruction, as every pattern the DFA does not run', () => {
    const folded = pattern(REVIEWER);
    expect(folded.engine).toBe('re2js');
    expect(folded.unitsPerChar).toBe(RE2JS_UNITS_PER_INSTRUCTION_CHAR * folded.size);
    // Without (?i) the DFA would need 2^196 states: built whole at compile time, it is found over
    // its budget there, and the pattern is on re2js for good, charged so.
    const exponential = pattern('(a|b)*a(a|b){195}x');
    expect(exponential.engine).toBe('re2js');
    expect(exponential.unitsPerChar).toBe(RE2JS_UNITS_PER_INSTRUCTION_CHAR * exponential.size);
  });

  it('charges the patterns the DFA runs per character, whatever their program', () => {
    for (const source of ['^[A-Z]{2,4}-[0-9]{3,6}$', '^.{1,255}$', '\\b(?:red|green|blue)\\b']) {
      const compiled = pattern(source);
      expect(compiled.engine, source).toBe('dfa');
      expect(compiled.unitsPerChar, source).toBe(DFA_UNITS_PER_CHAR);
    }
  });

  it("holds the worst accepted re2js pattern on the largest value far past one value's budget", () => {
    expect(pattern(REVIEWER).unitsPerChar * LARGEST_TEXT.length).toBeGreaterThan(5 * VALUE_CHECK_BUDGET);
    expect(compileSchemaPattern(REVIEWER).ok && compileSchemaPattern(REVIEWER)).toMatchObject({ pattern: { engine: 're2js' } });
  });
});

describe("one value's check budget", () => {
  it("refuses a value whose search would cost more than a value may, without searching: the reviewer's regex on 64 KB", () => {
    const { messages, spent } = judge('multi_line_text_field', [{ name: 'regex', value: REVIEWER }], LARGEST_TEXT);
    expect(messages).toEqual([
      'value: is too costly to check against this regular expression (it would take more than the work one value may cost) (rule regex)',
    ]);
    // The search was never started: only reading the text was work done.
    expect(spent).toBe(VALUE_UNITS_PER_CHAR * LARGEST_TEXT.length);
  });

  it('still judges short values against the same pattern', () => {
    expect(judge('multi_line_text_field', [{ name: 'regex', value: REVIEWER }], `${'a'.repeat(196)}x`).messages).toEqual([]);
    expect(judge('multi_line_text_field', [{ name: 'regex', value: REVIEWER }], 'ab'.repeat(300)).messages).toEqual([
      'value: does not match the regular expression (rule regex)',
    ]);
  });

  it('adds up the elements of a list: ten elements that each fit do not together', () => {
    const element = 'ab'.repeat(100);
    expect(pattern(REVIEWER).unitsPerChar * element.length).toBeLessThan(VALUE_CHECK_BUDGET / 5);
    const { messages } = judge(
      'list.single_line_text_field',
      [{ name: 'regex', value: REVIEWER }],
      JSON.stringify(Array(10).fill(element)),
    );
    expect(messages[0]).toBe('value[0]: does not match the regular expression (rule regex)');
    expect(messages.at(-1)).toMatch(/^value\[9\]: is too costly to check against this regular expression/);
  });

  it("refuses the reviewer's pattern in a JSON schema on a string of 100,000 characters as too costly", () => {
    const schema = JSON.stringify({ type: 'string', pattern: REVIEWER });
    const { messages, spent } = judge('json', [{ name: 'schema', value: schema }], JSON.stringify('ab'.repeat(50_000)));
    expect(messages).toEqual([
      'value: does not conform to the schema: is too costly to check against this schema (it would take more than the work one value may cost) (rule schema)',
    ]);
    expect(spent).toBeLessThanOrEqual(VALUE_CHECK_BUDGET);
  });

  it('charges patternProperties per key searched', () => {
    const schema = JSON.stringify({ type: 'object', patternProperties: { [REVIEWER]: true } });
    const keys = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`${i}${'ab'.repeat(25)}`, 0]));
    expect(judge('json', [{ name: 'schema', value: schema }], JSON.stringify(keys)).messages[0]).toMatch(
      /is too costly to check against this schema/,
    );
  });

  it('reports what a value spent to the caller: its text, and each search at its rate', () => {
    const text = 'x'.repeat(10_000);
    expect(judge('multi_line_text_field', [], text).spent).toBe(VALUE_UNITS_PER_CHAR * 10_000);
    expect(judge('multi_line_text_field', [{ name: 'regex', value: '^x+$' }], text).spent).toBe(
      (VALUE_UNITS_PER_CHAR + DFA_UNITS_PER_CHAR) * 10_000,
    );
    const folded = pattern('(?i)^x+$');
    expect(judge('multi_line_text_field', [{ name: 'regex', value: '(?i)^x+$' }], text).spent).toBe(
      (VALUE_UNITS_PER_CHAR + folded.unitsPerChar) * 10_000,
    );
  });
});
