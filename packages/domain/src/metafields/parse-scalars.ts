import type { Decimal } from 'decimal.js';
import {
  Dec,
  type DateTimeValue,
  type DateValue,
  type DecimalValue,
  type FileGidType,
  type FileReferenceValue,
  type IntegerValue,
  type MetaobjectReferenceValue,
} from './define-values';
import {
  DATE_SHAPE,
  DATE_TIME_SHAPE,
  DECIMAL_FRACTION_DIGITS,
  DECIMAL_INTEGER_DIGITS,
  FILE_GID_TYPES,
  GID_PREFIX,
  INTEGER_SHAPE,
  MAX_SAFE_INTEGER,
} from './define-value-formats';
import { MAX_ID } from '../pagination/parse-page-params';

// Scalar formats of decisions §8.8. Each parser returns the parsed value, or the problem text (a
// string) when the input does not match; the caller adds the field name. The shapes and bounds are
// define-value-formats.ts's, which also states each whole format as one pattern for the document.

export { DECIMAL_FRACTION_DIGITS, DECIMAL_INTEGER_DIGITS, MAX_SAFE_INTEGER };

const INTEGER = INTEGER_SHAPE;
export const NOT_AN_INTEGER = 'must be an integer (digits with an optional leading -, no leading zeros)';
export const INTEGER_OUT_OF_RANGE = `must be between -${MAX_SAFE_INTEGER} and ${MAX_SAFE_INTEGER}`;

/** number_integer: base-10, optional leading `-`, no `+`, no exponent, no leading zeros, within +/-(2^53 - 1). */
export function parseIntegerText(s: string): IntegerValue | string {
  if (!INTEGER.test(s)) return NOT_AN_INTEGER;
  const n = Number(s);
  if (n > MAX_SAFE_INTEGER || n < -MAX_SAFE_INTEGER) return INTEGER_OUT_OF_RANGE;
  return { kind: 'integer', value: n };
}

export const NOT_A_DECIMAL = 'must be a decimal number (digits, an optional leading - and an optional fraction, no leading zeros)';
const TOO_MANY_INTEGER_DIGITS = `must have at most ${DECIMAL_INTEGER_DIGITS} digits before the decimal point`;
const TOO_MANY_FRACTION_DIGITS = `must have at most ${DECIMAL_FRACTION_DIGITS} digits after the decimal point`;

// Powers of ten a double holds exactly: a decimal of at most 15 significant digits is an integer
// below 2^53 over one of them, and IEEE division rounds that quotient correctly, as Number() does.
const EXACT_POWERS_OF_TEN = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
const EXACT_SIGNIFICANT_DIGITS = 15;

/**
 * number_decimal: `-?(0|[1-9][0-9]*)(\.[0-9]+)?`, at most 13 integer and 9 fraction digits (no
 * exponent, no `+`, no leading zeros). Read by hand, not by a regular expression: every decimal and
 * measure value goes through here, and the same pass gives the double.
 */
export function parseDecimalText(s: string): DecimalValue | string {
  // Never reads past the end: charCodeAt out of range is NaN, and slow.
  const length = s.length;
  const integerStart = length > 0 && s.charCodeAt(0) === 0x2d ? 1 : 0;
  let i = integerStart;
  if (i === length) return NOT_A_DECIMAL;
  let c = s.charCodeAt(i) - 0x30;
  let digits = c;
  if (c === 0) i++;
  else if (c > 0 && c <= 9) {
    for (i++; i < length; i++) {
      c = s.charCodeAt(i) - 0x30;
      if (c < 0 || c > 9) break;
      digits = digits * 10 + c;
    }
  } else return NOT_A_DECIMAL;
  const integerDigits = i - integerStart;
  let fractionDigits = 0;
  if (i < length) {
    if (s.charCodeAt(i) !== 0x2e) return NOT_A_DECIMAL;
    const fractionStart = ++i;
    for (; i < length; i++) {
      c = s.charCodeAt(i) - 0x30;
      if (c < 0 || c > 9) return NOT_A_DECIMAL;
      digits = digits * 10 + c;
    }
    fractionDigits = i - fractionStart;
    if (fractionDigits === 0) return NOT_A_DECIMAL;
  }
  if (integerDigits > DECIMAL_INTEGER_DIGITS) return TOO_MANY_INTEGER_DIGITS;
  if (fractionDigits > DECIMAL_FRACTION_DIGITS) return TOO_MANY_FRACTION_DIGITS;
  // `digits` is exact while there are at most 15 of them (a leading 0 adds none); past that, Number().
  const significant = integerDigits + fractionDigits - (digits === 0 || s.charCodeAt(integerStart) === 0x30 ? 1 : 0);
  // (`significant` counts a fraction's leading zeros and trailing zeros too: never fewer than there are.)
  const fewDigits = significant <= EXACT_SIGNIFICANT_DIGITS;
  const magnitude = fewDigits ? digits / (EXACT_POWERS_OF_TEN[fractionDigits] as number) : Number.NaN;
  return new ParsedDecimal(s, fractionDigits, integerStart === 1 ? -magnitude : magnitude, fewDigits);
}

// The exact value is built on first use: bounds settle on the double unless it is too close to tell
// (compile-bounds), max_precision on the digits, and building a Decimal costs more than the rest of a
// value's check. JSON text is as before: `value` is written as decimal.js writes it (`approximate`
// is not written).
class ParsedDecimal implements DecimalValue {
  readonly kind = 'decimal';
  #value: Decimal | undefined;
  #approximate: number;

  constructor(
    readonly text: string,
    readonly fractionDigits: number,
    /** The double of `text`, or NaN when it is read on first use. */
    approximate: number,
    readonly fewDigits: boolean,
  ) {
    this.#approximate = approximate;
  }

  get value(): Decimal {
    return (this.#value ??= new Dec(this.text));
  }

  get approximate(): number {
    const known = this.#approximate;
    return known === known ? known : (this.#approximate = Number(this.text));
  }

  toJSON(): object {
    return { kind: this.kind, text: this.text, value: this.value, fractionDigits: this.fractionDigits };
  }
}

const DATE = DATE_SHAPE;
export const NOT_A_DATE = 'must be a date in the format YYYY-MM-DD';
export const NOT_A_REAL_DATE = 'is not a valid calendar date';

function digits(s: string, from: number, count: number): number {
  let n = 0;
  for (let i = from; i < from + count; i++) n = n * 10 + (s.charCodeAt(i) - 48);
  return n;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function validDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** date: `YYYY-MM-DD`, a real date of the proleptic Gregorian calendar. */
/**
 * Whether `s` is a real date written YYYY-MM-DD: parseDateText's check without making the value,
 * and ajv-formats' `date` format (the same pattern, months and leap years) without its captures.
 */
export function isDateText(s: string): boolean {
  return DATE.test(s) && validDate(digits(s, 0, 4), digits(s, 5, 2), digits(s, 8, 2));
}

export function parseDateText(s: string): DateValue | string {
  if (!DATE.test(s)) return NOT_A_DATE;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  if (!validDate(year, month, day)) return NOT_A_REAL_DATE;
  return { kind: 'date', text: s, ordinal: year * 10000 + month * 100 + day };
}

// Days from 1970-01-01 to a civil date (H. Hinnant's algorithm), exact for any year here.
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

// ISO 8601 extended format: date `T` hh:mm[:ss[.fraction]] [Z | +hh:mm | -hh:mm]. No offset means UTC.
const DATE_TIME = DATE_TIME_SHAPE;
export const NOT_A_DATE_TIME = 'must be an ISO 8601 date and time (YYYY-MM-DDThh:mm[:ss[.fraction]][Z|+hh:mm|-hh:mm])';
export const NOT_A_REAL_DATE_TIME = 'is not a valid date and time';

/** date_time: an instant; without an offset the time is UTC (decisions §8.8). */
export function parseDateTimeText(s: string): DateTimeValue | string {
  const m = DATE_TIME.exec(s);
  if (m === null) return NOT_A_DATE_TIME;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (!validDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return NOT_A_REAL_DATE_TIME;
  let offset = 0;
  const zone = m[8];
  if (zone !== undefined && zone !== 'Z') {
    const oh = digits(zone, 1, 2);
    const om = digits(zone, 4, 2);
    if (oh > 23 || om > 59) return NOT_A_REAL_DATE_TIME;
    offset = (zone[0] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  const fraction = m[7] ?? '';
  return {
    kind: 'date_time',
    text: s,
    epochSeconds: daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset,
    nanos: fraction === '' ? 0 : Number(fraction.padEnd(9, '0')),
  };
}

export function compareInstants(a: DateTimeValue, b: { epochSeconds: number; nanos: number }): number {
  return a.epochSeconds !== b.epochSeconds ? a.epochSeconds - b.epochSeconds : a.nanos - b.nanos;
}

// Resource ids are decimal strings of increasing integers, stored as 64-bit integers (decisions §3.5).
const ID = /^[1-9][0-9]{0,18}$/;
const MAX_ID_TEXT = MAX_ID.toString();

export function isResourceId(s: string): boolean {
  return ID.test(s) && (s.length < 19 || s <= MAX_ID_TEXT);
}

/** `gid://platform/{Type}/{id}` with Type one of `types`; returns the type and id, or undefined. */
export function parseGid<T extends string>(s: string, types: readonly T[]): { type: T; id: string } | undefined {
  if (!s.startsWith(GID_PREFIX)) return undefined;
  const slash = s.indexOf('/', GID_PREFIX.length);
  if (slash < 0) return undefined;
  const type = s.slice(GID_PREFIX.length, slash) as T;
  const id = s.slice(slash + 1);
  return types.includes(type) && isResourceId(id) ? { type, id } : undefined;
}

const FILE_TYPES: readonly FileGidType[] = FILE_GID_TYPES;
export const NOT_A_FILE_GID =
  'must be a file global id (gid://platform/MediaImage/<id>, gid://platform/Video/<id> or gid://platform/GenericFile/<id>)';

export function parseFileReferenceText(s: string): FileReferenceValue | string {
  const gid = parseGid(s, FILE_TYPES);
  return gid === undefined ? NOT_A_FILE_GID : { kind: 'file_reference', gid: s, fileType: gid.type, id: gid.id };
}

const METAOBJECT_TYPES = ['Metaobject'] as const;
export const NOT_A_METAOBJECT_GID = 'must be a metaobject global id (gid://platform/Metaobject/<id>)';

export function parseMetaobjectReferenceText(s: string): MetaobjectReferenceValue | string {
  const gid = parseGid(s, METAOBJECT_TYPES);
  return gid === undefined ? NOT_A_METAOBJECT_GID : { kind: 'metaobject_reference', gid: s, id: gid.id };
}

export const HAS_LINE_BREAK = 'must be a single line (no line breaks)';

export function hasLineBreak(s: string): boolean {
  return s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0;
}
