import { measureDimensionOf } from './convert-units';
import {
  LIST_MAX_ELEMENTS,
  checkedTypeOf,
  exceedsBytes,
  isListType,
  isSupportedType,
  maxBytesOf,
  type MetafieldType,
  type ScalarType,
} from './define-types';
import type { BooleanValue, ParsedValue, ScalarValue } from './define-values';
import { makeIssue, type Issue, type Result } from './format-issues';
import { findDuplicateKey } from '../json/find-duplicate-key';
import { lastFailure, NOT_READ, readJson, type JsonReadOptions } from '../json/read-json';
import { SCHEMA_VALUE_MAX_DEPTH } from './compile-schema';
import { JsonNumber, describeJsonFailure, parseStrictJson, type JsonNode } from './parse-json';
import {
  HAS_LINE_BREAK,
  hasLineBreak,
  parseDateText,
  parseDateTimeText,
  parseDecimalText,
  parseFileReferenceText,
  parseIntegerText,
  parseMetaobjectReferenceText,
} from './parse-scalars';
import { parseLinkNode, parseMeasureNode, parseRatingNode } from './parse-structured';
import { parseUrlText } from './parse-url';
import { readMeasure, readMeasureList } from './read-measures';

// The basic check of decisions §8.8 (first validation level): the value matches its type's format.

/** Parses `raw`, pushing issues under `field`; undefined when it does not pass. */
export type ValueParser = (raw: string, issues: Issue[]) => ParsedValue | undefined;
type ScalarParser = (input: string, field: string, issues: Issue[]) => ScalarValue | undefined;
type ElementParser = (node: JsonNode, field: string, issues: Issue[]) => ScalarValue | undefined;

const TRUE: BooleanValue = Object.freeze({ kind: 'boolean', value: true });
const FALSE: BooleanValue = Object.freeze({ kind: 'boolean', value: false });

// Types whose value (or list element) is a string; each returns the value or the problem text.
const STRING_PARSERS: Partial<Record<ScalarType, (s: string) => ScalarValue | string>> = {
  single_line_text_field: (s) => (hasLineBreak(s) ? HAS_LINE_BREAK : { kind: 'text', text: s }),
  multi_line_text_field: (s) => ({ kind: 'text', text: s }),
  boolean: (s) => (s === 'true' ? TRUE : s === 'false' ? FALSE : 'must be true or false'),
  date: parseDateText,
  date_time: parseDateTimeText,
  number_integer: parseIntegerText,
  number_decimal: parseDecimalText,
  url: (s) => parseUrlText(s),
  file_reference: parseFileReferenceText,
  metaobject_reference: parseMetaobjectReferenceText,
};

// Measures, ratings and links are JSON objects holding scalars; one extra level lets a wrong shape
// be reported as such rather than as "nested too deeply".
const OBJECT_DEPTH = 2;

function nodeParserFor(type: ScalarType): ElementParser | undefined {
  const dimension = measureDimensionOf(type);
  if (dimension !== undefined) return (node, field, issues) => parseMeasureNode(node, dimension, field, issues);
  if (type === 'rating') return parseRatingNode;
  if (type === 'link') return parseLinkNode;
  return undefined;
}

// json values are read into records (objects that inherit nothing: a schema's lookup of `toString`
// finds only data) as deep as a schema checks them (compile-schema); deeper ones, which a schema
// refuses unread, by JSON.parse.
const JSON_READING: JsonReadOptions = { maxDepth: SCHEMA_VALUE_MAX_DEPTH, records: true };

// JSON.parse keeps the last of two equal keys: a schema would judge one reading of the value while
// a reader that keeps the first sees another. Refused, as in the other structured types.
function duplicateKeyText(key: string): string {
  return `is not valid JSON (duplicate key "${key.length > 100 ? `${key.slice(0, 100)}…` : key}")`;
}

function readDeepJson(input: string, field: string, issues: Issue[]): ScalarValue | undefined {
  let value: unknown;
  try {
    value = JSON.parse(input) as unknown;
  } catch {
    issues.push(makeIssue(field, 'is not valid JSON'));
    return undefined;
  }
  const duplicate = findDuplicateKey(input);
  if (duplicate !== undefined) {
    issues.push(makeIssue(field, duplicateKeyText(duplicate)));
    return undefined;
  }
  return { kind: 'json', text: input, value };
}

function fromText(parse: (s: string) => ScalarValue | string): ScalarParser {
  return (input, field, issues) => {
    const parsed = parse(input);
    if (typeof parsed !== 'string') return parsed;
    issues.push(makeIssue(field, parsed));
    return undefined;
  };
}

function scalarParserFor(type: ScalarType, fast: boolean): ScalarParser {
  const text = STRING_PARSERS[type];
  if (text !== undefined) return fromText(text);
  if (type === 'json') {
    return (input, field, issues) => {
      const value = readJson(input, JSON_READING);
      if (value !== NOT_READ) return { kind: 'json', text: input, value };
      if (lastFailure.reason === 'too-deep') return readDeepJson(input, field, issues);
      issues.push(makeIssue(field, lastFailure.reason === 'syntax' ? 'is not valid JSON' : duplicateKeyText(lastFailure.duplicateKey)));
      return undefined;
    };
  }
  const node = nodeParserFor(type);
  if (node === undefined) throw new RangeError(`no parser for ${type}`);
  const dimension = fast ? measureDimensionOf(type) : undefined;
  return (input, field, issues) => {
    // What writers send, read in one pass; anything else, by the strict reader, which says what is wrong.
    const measure = dimension === undefined ? undefined : readMeasure(input, dimension);
    if (measure !== undefined) return measure;
    const json = parseStrictJson(input, OBJECT_DEPTH);
    if (json.ok) return node(json.value, field, issues);
    issues.push(makeIssue(field, describeJsonFailure(json)));
    return undefined;
  };
}

// decisions §8.8: in lists, integers are JSON numbers, decimals JSON strings (numbers accepted
// too), measures, ratings and links JSON objects, the rest JSON strings.
function elementParserFor(type: ScalarType): ElementParser {
  const node = nodeParserFor(type);
  if (node !== undefined) return node;
  if (type === 'number_integer') {
    const integer = fromText(parseIntegerText);
    return (element, field, issues) => {
      if (element instanceof JsonNumber) return integer(element.text, field, issues);
      issues.push(makeIssue(field, 'must be a JSON number'));
      return undefined;
    };
  }
  const text = STRING_PARSERS[type];
  if (text === undefined) throw new RangeError(`no list of ${type}`);
  const parse = fromText(text);
  const numbersToo = type === 'number_decimal';
  return (element, field, issues) => {
    if (typeof element === 'string') return parse(element, field, issues);
    if (numbersToo && element instanceof JsonNumber) return parse(element.text, field, issues);
    issues.push(makeIssue(field, numbersToo ? 'must be a JSON string or number' : 'must be a JSON string'));
    return undefined;
  };
}

function listParserFor(type: ScalarType, fast: boolean): (raw: string, issues: Issue[]) => ParsedValue | undefined {
  const element = elementParserFor(type);
  const depth = 1 + OBJECT_DEPTH;
  const dimension = fast ? measureDimensionOf(type) : undefined;
  return (raw, issues) => {
    const measures = dimension === undefined ? undefined : readMeasureList(raw, dimension);
    if (measures !== undefined) return measures;
    const json = parseStrictJson(raw, depth);
    if (!json.ok) {
      issues.push(makeIssue('value', json.reason === 'syntax' ? 'must be a JSON array' : describeJsonFailure(json)));
      return undefined;
    }
    const nodes = json.value;
    if (!Array.isArray(nodes)) {
      issues.push(makeIssue('value', 'must be a JSON array'));
      return undefined;
    }
    if (nodes.length > LIST_MAX_ELEMENTS) {
      issues.push(makeIssue('value', `has too many elements (maximum is ${LIST_MAX_ELEMENTS})`));
      return undefined;
    }
    const before = issues.length;
    const elements: (ScalarValue | null)[] = new Array<ScalarValue | null>(nodes.length);
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i] as JsonNode;
      // decisions §2.6: an empty element stays allowed (and later skips the element rules).
      elements[i] = node === '' ? null : (element(node, `value[${i}]`, issues) ?? null);
    }
    return issues.length === before ? { kind: 'list', elements } : undefined;
  };
}

/**
 * The basic check of `type`, compiled once: size limit first, then the format. `fastPaths: false`
 * reads measures with the strict reader alone: the reference the fast path is held to in tests.
 */
export function valueParserFor(type: MetafieldType, { fastPaths = true }: { fastPaths?: boolean } = {}): ValueParser {
  const maxBytes = maxBytesOf(type);
  const tooLong = `is too long (maximum is ${maxBytes} bytes)`;
  const text = isListType(type) ? undefined : STRING_PARSERS[type];
  if (text !== undefined) {
    // A value read from its text alone, with no closure between: the same as fromText's, every
    // value written goes through here.
    return (raw, issues) => {
      const parsed = exceedsBytes(raw, maxBytes) ? tooLong : text(raw);
      if (typeof parsed !== 'string') return parsed;
      issues.push(makeIssue('value', parsed));
      return undefined;
    };
  }
  if (!isListType(type)) {
    const scalar = scalarParserFor(type, fastPaths);
    return (raw, issues) => {
      if (!exceedsBytes(raw, maxBytes)) return scalar(raw, 'value', issues);
      issues.push(makeIssue('value', tooLong));
      return undefined;
    };
  }
  const list = listParserFor(checkedTypeOf(type), fastPaths);
  return (raw, issues) => {
    if (!exceedsBytes(raw, maxBytes)) return list(raw, issues);
    issues.push(makeIssue('value', tooLong));
    return undefined;
  };
}

const PARSERS = new Map<MetafieldType, ValueParser>();

/** The basic type check alone (what a write without a definition runs, decisions §8.9). */
export function parseValue(type: string, raw: string): Result<ParsedValue> {
  if (!isSupportedType(type)) return { ok: false, issues: [makeIssue('type', `'${type}' is not a supported type`)] };
  if (typeof raw !== 'string') return { ok: false, issues: [makeIssue('value', 'must be a string')] };
  let parser = PARSERS.get(type);
  if (parser === undefined) {
    parser = valueParserFor(type);
    PARSERS.set(type, parser);
  }
  const issues: Issue[] = [];
  const value = parser(raw, issues);
  return value === undefined ? { ok: false, issues } : { ok: true, value };
}
