import { describe, expect, it } from 'vitest';
import { boundCheck, compareBounds, parseBound, type Bound } from './compile-bounds';
import type { ScalarType } from './define-types';
import { parseValue } from './parse-value';

function bound(type: ScalarType, raw: string): Bound {
  const parsed = parseBound(type, raw);
  if (typeof parsed === 'string') throw new Error(`${type} ${raw}: ${parsed}`);
  return parsed;
}

/** What the min and max rules say about `value` (null when it passes). */
function judge(type: ScalarType, rule: 'min' | 'max', ruleValue: string, value: string): string | null {
  const parsed = parseValue(type, value);
  if (!parsed.ok || parsed.value.kind === 'list') throw new Error(`${type} ${value}`);
  return boundCheck(bound(type, ruleValue), rule)(parsed.value)?.text ?? null;
}

describe('min/max value formats (spec rules table)', () => {
  it('text types take a length as integer text', () => {
    expect(bound('single_line_text_field', '10')).toMatchObject({ kind: 'length', n: 10 });
    expect(bound('multi_line_text_field', '0')).toMatchObject({ kind: 'length', n: 0 });
    for (const bad of ['-1', '1.5', 'ten', '', '01', '1e3'])
      expect(parseBound('single_line_text_field', bad), bad).toBe('must be a non-negative integer (a length in characters)');
  });

  it('number_integer takes a non-negative integer', () => {
    expect(bound('number_integer', '5')).toMatchObject({ kind: 'integer', n: 5 });
    for (const bad of ['-5', '1.5', '9007199254740992', 'x'])
      expect(parseBound('number_integer', bad), bad).toBe('must be a non-negative integer');
  });

  it('number_decimal may be negative', () => {
    expect(bound('number_decimal', '-2.5')).toMatchObject({ kind: 'decimal', display: '-2.5' });
    expect(typeof parseBound('number_decimal', '1e3')).toBe('string');
  });

  it('number_decimal at the bound: equal doubles decide alone only between decimals of at most 15 significant digits', () => {
    // 1.50 and 1.5 are the same decimal: both rules pass.
    expect(judge('number_decimal', 'min', '1.5', '1.50')).toBeNull();
    expect(judge('number_decimal', 'max', '1.50', '1.5')).toBeNull();
    // 19 significant digits: the same double as 1000000000000, a different decimal.
    expect(judge('number_decimal', 'max', '1000000000000.000001', '1000000000000')).toBeNull();
    expect(judge('number_decimal', 'min', '1000000000000.000001', '1000000000000')).toMatch(/minimum/);
    expect(judge('number_decimal', 'max', '1000000000000', '1000000000000.000001')).toMatch(/maximum/);
    expect(judge('number_decimal', 'max', '-999999999999.999999', '-1000000000000')).toBeNull();
    expect(judge('number_decimal', 'min', '-999999999999.999999', '-1000000000000')).toMatch(/minimum/);
    // Short on both sides, the exact decimal is never built for a value at the bound.
    const noDecimal = {
      kind: 'decimal' as const,
      text: '99999.99',
      approximate: 99999.99,
      fractionDigits: 2,
      fewDigits: true,
      get value(): never {
        throw new Error('built a Decimal');
      },
    };
    expect(boundCheck(bound('number_decimal', '99999.99'), 'max')(noDecimal)).toBeNull();
    expect(boundCheck(bound('number_decimal', '99999.990'), 'min')(noDecimal)).toBeNull();
  });

  it('dates take ISO 8601 date or date-time text', () => {
    expect(bound('date', '2026-01-31')).toMatchObject({ kind: 'date', ordinal: 20260131 });
    // A date-time bound of a date type counts by the calendar date it is written with.
    expect(bound('date', '2026-01-31T23:30:00-05:00')).toMatchObject({ kind: 'date', ordinal: 20260131 });
    expect(bound('date_time', '2026-01-31T12:00:00+01:00')).toMatchObject({
      kind: 'instant',
      epochSeconds: Date.UTC(2026, 0, 31, 11) / 1000,
    });
    // A date bound of a date_time type is that day's midnight UTC.
    expect(bound('date_time', '2026-01-31')).toMatchObject({ kind: 'instant', epochSeconds: Date.UTC(2026, 0, 31) / 1000, nanos: 0 });
    for (const bad of ['2026-02-30', 'tomorrow', '2026-01-31T25:00:00Z', '']) {
      expect(parseBound('date', bad), bad).toBe('must be an ISO 8601 date (YYYY-MM-DD) or date and time');
      expect(parseBound('date_time', bad), bad).toBe('must be an ISO 8601 date (YYYY-MM-DD) or date and time');
    }
  });

  it('weight, volume and dimension take JSON {unit, value}, non-negative, units of §8.10', () => {
    expect(bound('weight', '{"unit":"kg","value":1.5}')).toMatchObject({ kind: 'measure', display: '1.5 kg' });
    expect(bound('volume', '{"value":"2","unit":"l"}')).toMatchObject({ kind: 'measure', display: '2 l' });
    expect(bound('dimension', '{"unit":"in","value":0}')).toMatchObject({ kind: 'measure', display: '0 in' });
    const shape = 'must be JSON text of an object with keys unit (g, kg, lb, oz) and value (a non-negative number)';
    for (const bad of [
      '{"unit":"kg","value":-1}',
      '{"unit":"ml","value":1}',
      '{"unit":"kg"}',
      '{"unit":"kg","value":1,"x":1}',
      '5',
      '{"unit":"kg","value":"abc"}',
      '{"unit":"kg","value":1,"unit":"g"}',
    ]) {
      expect(parseBound('weight', bad), bad).toBe(shape);
    }
  });
});

describe('bounds are inclusive (decisions §8.13)', () => {
  it('text length counts code points', () => {
    expect(judge('single_line_text_field', 'max', '3', 'abc')).toBeNull();
    expect(judge('single_line_text_field', 'max', '3', 'abcd')).toBe('has a maximum length of 3 (rule max)');
    expect(judge('single_line_text_field', 'max', '3', '😀😀😀')).toBeNull();
    expect(judge('single_line_text_field', 'min', '3', '😀😀')).toBe('has a minimum length of 3 (rule min)');
    expect(judge('single_line_text_field', 'min', '3', '😀😀😀')).toBeNull();
    expect(judge('multi_line_text_field', 'min', '2', 'ab')).toBeNull();
  });

  it('integers and decimals compare by value', () => {
    expect(judge('number_integer', 'max', '5', '5')).toBeNull();
    expect(judge('number_integer', 'max', '5', '6')).toBe('has a maximum of 5 (rule max)');
    expect(judge('number_integer', 'min', '0', '-1')).toBe('has a minimum of 0 (rule min)');
    expect(judge('number_decimal', 'min', '-1.5', '-1.50')).toBeNull();
    expect(judge('number_decimal', 'min', '-1.5', '-1.500000001')).toBe('has a minimum of -1.5 (rule min)');
    expect(judge('number_decimal', 'max', '0.1', '0.100000001')).toBe('has a maximum of 0.1 (rule max)');
  });

  it('dates compare as calendar dates', () => {
    expect(judge('date', 'min', '2026-01-31', '2026-01-31')).toBeNull();
    expect(judge('date', 'min', '2026-01-31', '2026-01-30')).toBe('has a minimum of 2026-01-31 (rule min)');
    expect(judge('date', 'max', '2026-01-31T23:00:00-05:00', '2026-01-31')).toBeNull();
    expect(judge('date', 'max', '2026-01-31T23:00:00-05:00', '2026-02-01')).toBe('has a maximum of 2026-01-31T23:00:00-05:00 (rule max)');
  });

  it('date-times compare as instants, whatever their offsets', () => {
    expect(judge('date_time', 'max', '2026-01-01T12:00:00Z', '2026-01-01T13:00:00+01:00')).toBeNull();
    expect(judge('date_time', 'max', '2026-01-01T12:00:00Z', '2026-01-01T13:00:00.000000001+01:00')).toBe(
      'has a maximum of 2026-01-01T12:00:00Z (rule max)',
    );
    expect(judge('date_time', 'min', '2026-01-01', '2025-12-31T23:59:59-00:01')).toBeNull();
    expect(judge('date_time', 'min', '2026-01-01', '2025-12-31T23:59:59Z')).toBe('has a minimum of 2026-01-01 (rule min)');
  });

  it('measures compare across units with exact arithmetic', () => {
    expect(judge('weight', 'max', '{"unit":"lb","value":1}', '{"value":453.59237,"unit":"g"}')).toBeNull();
    expect(judge('weight', 'max', '{"unit":"lb","value":1}', '{"value":453.592370001,"unit":"g"}')).toBe(
      'has a maximum of 1 lb (rule max)',
    );
    expect(judge('weight', 'min', '{"unit":"lb","value":1}', '{"value":16,"unit":"oz"}')).toBeNull();
    expect(judge('weight', 'min', '{"unit":"kg","value":1}', '{"value":999.999999999,"unit":"g"}')).toBe(
      'has a minimum of 1 kg (rule min)',
    );
    expect(judge('volume', 'max', '{"unit":"us_gal","value":1}', '{"value":128,"unit":"us_fl_oz"}')).toBeNull();
    expect(judge('volume', 'max', '{"unit":"imp_pt","value":1}', '{"value":20.000000001,"unit":"imp_fl_oz"}')).toBe(
      'has a maximum of 1 imp_pt (rule max)',
    );
    expect(judge('volume', 'min', '{"unit":"l","value":1}', '{"value":0.001,"unit":"m3"}')).toBeNull();
    expect(judge('dimension', 'max', '{"unit":"ft","value":1}', '{"value":30.48,"unit":"cm"}')).toBeNull();
    expect(judge('dimension', 'max', '{"unit":"yd","value":1}', '{"value":36.000000001,"unit":"in"}')).toBe(
      'has a maximum of 1 yd (rule max)',
    );
  });
});

describe('compareBounds (min <= max)', () => {
  it('orders bounds of each kind', () => {
    expect(compareBounds(bound('single_line_text_field', '2'), bound('single_line_text_field', '3'))).toBeLessThan(0);
    expect(compareBounds(bound('number_integer', '3'), bound('number_integer', '3'))).toBe(0);
    expect(compareBounds(bound('number_decimal', '-1'), bound('number_decimal', '-2'))).toBeGreaterThan(0);
    expect(compareBounds(bound('date', '2026-01-02'), bound('date', '2026-01-01T00:00:00Z'))).toBeGreaterThan(0);
    expect(compareBounds(bound('date_time', '2026-01-01T01:00:00+01:00'), bound('date_time', '2026-01-01'))).toBe(0);
    expect(compareBounds(bound('weight', '{"unit":"kg","value":1}'), bound('weight', '{"unit":"lb","value":2}'))).toBeGreaterThan(0);
    expect(compareBounds(bound('weight', '{"unit":"oz","value":16}'), bound('weight', '{"unit":"lb","value":1}'))).toBe(0);
    expect(() => compareBounds(bound('date', '2026-01-01'), bound('number_integer', '1'))).toThrow(RangeError);
  });
});
