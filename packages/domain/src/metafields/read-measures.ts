import { unitsOf } from './convert-units';
import { LIST_MAX_ELEMENTS } from './define-types';
import type { ListValue, MeasureDimension, MeasureValue } from './define-values';
import { parseDecimalText } from './parse-scalars';
import { measureValue } from './parse-structured';

// The fast path of weight, volume and dimension values and lists (decisions §8.8): one pass over
// the text for what writers send, `{"value":1.5,"unit":"kg"}` and arrays of those, with no tree of
// JSON nodes in between. It answers only for text the strict reader would accept with no issue,
// and then with the same value; anything else (an escape, another key, an exponent, a unit of
// another dimension, a syntax error...) answers undefined, and the strict reader
// (parse-value.ts) reads the text again and says what is wrong. read-measures.property.test.ts
// holds the two to the same answers.

// The text being read, and where the last measure read ended. Reads are synchronous and never
// nested, so one state serves (an object per call would be an allocation per value).
let text = '';
let units: readonly string[] = [];
let dimension: MeasureDimension = 'weight';
let pos = 0;

const UNITS = new Map<MeasureDimension, readonly string[]>((['weight', 'volume', 'dimension'] as const).map((d) => [d, unitsOf(d)]));

function start(source: string, of: MeasureDimension): void {
  text = source;
  dimension = of;
  units = UNITS.get(of) as readonly string[];
}

/** Reads `{"value":n,"unit":u}`, alone (whitespace around it allowed). */
export function readMeasure(source: string, of: MeasureDimension): MeasureValue | undefined {
  start(source, of);
  const value = measureAt(skipSpace(0));
  const read = value !== undefined && skipSpace(pos) === text.length;
  text = '';
  return read ? value : undefined;
}

/** Reads an array of measures and empty elements (`""`, decisions §2.6). */
export function readMeasureList(source: string, of: MeasureDimension): ListValue | undefined {
  start(source, of);
  const elements = listAt(skipSpace(0));
  const read = elements !== undefined && skipSpace(pos) === text.length;
  text = '';
  return read ? { kind: 'list', elements } : undefined;
}

function listAt(from: number): (MeasureValue | null)[] | undefined {
  if (from === text.length || text.charCodeAt(from) !== 0x5b /* [ */) return undefined;
  const elements: (MeasureValue | null)[] = [];
  let i = skipSpace(from + 1);
  if (i < text.length && text.charCodeAt(i) === 0x5d /* ] */) {
    pos = i + 1;
    return elements;
  }
  for (;;) {
    if (elements.length === LIST_MAX_ELEMENTS) return undefined;
    if (text.startsWith('""', i)) {
      elements.push(null);
      i += 2;
    } else {
      const element = measureAt(i);
      if (element === undefined) return undefined;
      elements.push(element);
      i = pos;
    }
    i = skipSpace(i);
    if (i === text.length) return undefined;
    const c = text.charCodeAt(i);
    if (c === 0x5d /* ] */) {
      pos = i + 1;
      return elements;
    }
    if (c !== 0x2c /* , */) return undefined;
    i = skipSpace(i + 1);
  }
}

// Never reads past the end: charCodeAt out of range is NaN, and slow.
function skipSpace(from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** A measure object starting at `from`; sets `pos` after it. */
function measureAt(from: number): MeasureValue | undefined {
  if (from >= text.length || text.charCodeAt(from) !== 0x7b /* { */) return undefined;
  let valueText: string | undefined;
  let unit: string | undefined;
  let i = skipSpace(from + 1);
  for (let member = 0; member < 2; member++) {
    if (member === 1) {
      if (i === text.length || text.charCodeAt(i) !== 0x2c /* , */) return undefined;
      i = skipSpace(i + 1);
    }
    // Keys are compared as written: an escaped spelling goes to the strict reader.
    if (i + 1 >= text.length || text.charCodeAt(i) !== 0x22) return undefined;
    const first = text.charCodeAt(i + 1);
    if (first === 0x76 /* v */ && valueText === undefined && text.startsWith('value"', i + 1)) {
      i = afterColon(i + 7);
      if (i < 0) return undefined;
      const end = numberEnd(i);
      if (end === i) return undefined;
      valueText = text.slice(i, end);
      i = end;
    } else if (first === 0x75 /* u */ && unit === undefined && text.startsWith('unit"', i + 1)) {
      i = afterColon(i + 6);
      if (i < 0) return undefined;
      unit = unitAt(i);
      if (unit === undefined) return undefined;
      i += unit.length + 2;
    } else return undefined;
    i = skipSpace(i);
  }
  if (i === text.length || text.charCodeAt(i) !== 0x7d /* } */ || valueText === undefined || unit === undefined) return undefined;
  const decimal = parseDecimalText(valueText);
  if (typeof decimal === 'string') return undefined;
  pos = i + 1;
  return measureValue(dimension, decimal, unit);
}

/** After a key: the position past its colon and the space around it, or -1. */
function afterColon(from: number): number {
  const i = skipSpace(from);
  return i < text.length && text.charCodeAt(i) === 0x3a /* : */ ? skipSpace(i + 1) : -1;
}

/** The end of the run of number characters at `from` (the decimal format then judges the run). */
function numberEnd(from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e)) break;
    i++;
  }
  return i;
}

/** The unit of the dimension written as a plain string at `from` (`"kg"`), or undefined. */
function unitAt(from: number): string | undefined {
  if (from >= text.length || text.charCodeAt(from) !== 0x22) return undefined;
  const length = text.indexOf('"', from + 1) - from - 1;
  for (let u = 0; u < units.length; u++) {
    const unit = units[u] as string;
    if (unit.length === length && text.startsWith(unit, from + 1)) return unit;
  }
  return undefined;
}
