import type { Decimal } from 'decimal.js';
import { approximateFactors, isUnitOf, measureDimensionOf, toBaseUnit, unitsOf } from './convert-units';
import { ruleFailure, type ElementCheck } from './define-checks';
import { codePointLength, type ScalarType } from './define-types';
import type { DateTimeValue, DateValue, DecimalValue, IntegerValue, MeasureDimension, MeasureValue, TextValue } from './define-values';
import { JsonNumber, isJsonObject, jsonKeys, parseStrictJson } from './parse-json';
import { MAX_SAFE_INTEGER, parseDateText, parseDateTimeText, parseDecimalText, parseIntegerText } from './parse-scalars';

// The `min` and `max` rules: their value format per type (spec rules table) and the inclusive
// comparison of decisions §8.13.

export type Bound =
  | { readonly kind: 'length'; readonly n: number; readonly display: string }
  | { readonly kind: 'integer'; readonly n: number; readonly display: string }
  | { readonly kind: 'decimal'; readonly d: Decimal; readonly display: string; readonly fewDigits: boolean }
  | { readonly kind: 'date'; readonly ordinal: number; readonly display: string }
  | { readonly kind: 'instant'; readonly epochSeconds: number; readonly nanos: number; readonly display: string }
  | { readonly kind: 'measure'; readonly dimension: MeasureDimension; readonly base: Decimal; readonly display: string };

const LENGTH = /^(?:0|[1-9][0-9]*)$/;
const NOT_A_LENGTH = 'must be a non-negative integer (a length in characters)';
const NOT_NON_NEGATIVE_INTEGER = 'must be a non-negative integer';
const NOT_A_DATE_BOUND = 'must be an ISO 8601 date (YYYY-MM-DD) or date and time';

function measureBound(dimension: MeasureDimension, raw: string): Bound | string {
  const shape = `must be JSON text of an object with keys unit (${unitsOf(dimension).join(', ')}) and value (a non-negative number)`;
  const json = parseStrictJson(raw, 1);
  if (!json.ok || !isJsonObject(json.value)) return shape;
  const node = json.value;
  const keys = jsonKeys(node);
  const unit = node['unit'];
  const value = node['value'];
  if (keys.length !== 2 || typeof unit !== 'string' || !isUnitOf(dimension, unit)) return shape;
  const text = value instanceof JsonNumber ? value.text : typeof value === 'string' ? value : undefined;
  const parsed = text === undefined ? shape : parseDecimalText(text);
  if (typeof parsed === 'string') return shape;
  if (parsed.value.isNegative() && !parsed.value.isZero()) return shape;
  return { kind: 'measure', dimension, base: toBaseUnit(dimension, unit, parsed.value), display: `${parsed.text} ${unit}` };
}

/** Parses a min/max rule value for values of `type` (the element type for lists); a string is the problem. */
export function parseBound(type: ScalarType, raw: string): Bound | string {
  switch (type) {
    case 'single_line_text_field':
    case 'multi_line_text_field': {
      if (!LENGTH.test(raw)) return NOT_A_LENGTH;
      const n = Number(raw);
      return n > MAX_SAFE_INTEGER ? NOT_A_LENGTH : { kind: 'length', n, display: raw };
    }
    case 'number_integer': {
      const parsed = parseIntegerText(raw);
      if (typeof parsed === 'string' || raw.startsWith('-')) return NOT_NON_NEGATIVE_INTEGER;
      return { kind: 'integer', n: parsed.value, display: raw };
    }
    case 'number_decimal': {
      // The one numeric type whose bounds may be negative.
      const parsed = parseDecimalText(raw);
      return typeof parsed === 'string' ? parsed : { kind: 'decimal', d: parsed.value, display: raw, fewDigits: parsed.fewDigits === true };
    }
    case 'date': {
      // A date-time bound counts by the calendar date it is written with.
      const date = parseDateText(raw.length > 10 && typeof parseDateTimeText(raw) !== 'string' ? raw.slice(0, 10) : raw);
      return typeof date === 'string' ? NOT_A_DATE_BOUND : { kind: 'date', ordinal: date.ordinal, display: raw };
    }
    case 'date_time': {
      // A date bound is that day's midnight UTC.
      const instant = parseDateTimeText(typeof parseDateText(raw) === 'string' ? raw : `${raw}T00:00:00Z`);
      if (typeof instant === 'string') return NOT_A_DATE_BOUND;
      return { kind: 'instant', epochSeconds: instant.epochSeconds, nanos: instant.nanos, display: raw };
    }
    default: {
      const dimension = measureDimensionOf(type);
      if (dimension === undefined) throw new RangeError(`min/max do not apply to ${type}`);
      return measureBound(dimension, raw);
    }
  }
}

/** Orders two bounds of one type: negative when `a` is below `b`. */
export function compareBounds(a: Bound, b: Bound): number {
  if (a.kind === 'length' && b.kind === 'length') return a.n - b.n;
  if (a.kind === 'integer' && b.kind === 'integer') return a.n - b.n;
  if (a.kind === 'decimal' && b.kind === 'decimal') return a.d.comparedTo(b.d);
  if (a.kind === 'date' && b.kind === 'date') return a.ordinal - b.ordinal;
  if (a.kind === 'instant' && b.kind === 'instant') {
    return a.epochSeconds !== b.epochSeconds ? a.epochSeconds - b.epochSeconds : a.nanos - b.nanos;
  }
  if (a.kind === 'measure' && b.kind === 'measure') return a.base.comparedTo(b.base);
  throw new RangeError(`bounds of kinds ${a.kind} and ${b.kind} do not compare`);
}

/**
 * The sign of A - B for exact decimals A and B, given doubles a and b each within a relative 4e-16 of
 * them (a decimal text read by Number(), times at most one double factor): 0 when the doubles are
 * too close to tell, and the exact comparison must decide. The margin is a thousand times the error.
 */
export function roughOrder(a: number, b: number): number {
  const margin = (Math.abs(a) + Math.abs(b)) * 1e-12;
  return a - b > margin ? 1 : b - a > margin ? -1 : 0;
}

/** The check of a bound: inclusive, so a value equal to the bound passes. */
export function boundCheck(bound: Bound, rule: 'min' | 'max'): ElementCheck {
  const isMin = rule === 'min';
  const word = isMin ? 'minimum' : 'maximum';
  const fail = ruleFailure(
    bound.kind === 'length'
      ? `has a ${word} length of ${bound.display} (rule ${rule})`
      : `has a ${word} of ${bound.display} (rule ${rule})`,
    { name: rule, kind: 'broken', bound: bound.display },
  );
  // `order(v)` is negative when the value is below the bound, positive when above.
  const judge = (order: number) => ((isMin ? order < 0 : order > 0) ? fail : null);
  switch (bound.kind) {
    case 'length': {
      const n = bound.n;
      return (v) => {
        const text = (v as TextValue).text;
        // Code points never exceed UTF-16 units: spare the count when the answer is already known.
        if (isMin ? text.length < n : text.length <= n) return isMin ? fail : null;
        return judge(codePointLength(text) - n);
      };
    }
    case 'integer': {
      const n = bound.n;
      return (v) => judge((v as IntegerValue).value - n);
    }
    case 'decimal': {
      const d = bound.d;
      const approx = d.toNumber();
      const fewDigits = bound.fewDigits;
      // Both doubles are the nearest to their decimal (Number() of the text), and rounding to the
      // nearest never reverses an order: doubles that differ order the decimals alike, and only
      // equal ones need the exact comparison (a margin is for doubles that went through a product),
      // unless both decimals have at most 15 significant digits: then equal doubles are equal
      // decimals (DecimalValue.fewDigits), and a value at the bound costs no Decimal.
      return (v) => {
        const value = v as DecimalValue;
        const a = value.approximate;
        return judge(a < approx ? -1 : a > approx ? 1 : fewDigits && value.fewDigits === true ? 0 : value.value.comparedTo(d));
      };
    }
    case 'date': {
      const ordinal = bound.ordinal;
      return (v) => judge((v as DateValue).ordinal - ordinal);
    }
    case 'instant': {
      const { epochSeconds, nanos } = bound;
      return (v) => {
        const t = v as DateTimeValue;
        return judge(t.epochSeconds !== epochSeconds ? t.epochSeconds - epochSeconds : t.nanos - nanos);
      };
    }
    case 'measure': {
      const base = bound.base;
      const approx = base.toNumber();
      const factors = approximateFactors(bound.dimension);
      return (v) => {
        const m = v as MeasureValue;
        // Exact conversion (decisions §8.13) only when the doubles are too close to tell.
        const factor = m.dimension === bound.dimension ? factors.get(m.unit) : undefined;
        const order = factor === undefined ? 0 : roughOrder(m.approximate * factor, approx);
        return judge(order !== 0 ? order : toBaseUnit(m.dimension, m.unit, m.value).comparedTo(base));
      };
    }
  }
}
