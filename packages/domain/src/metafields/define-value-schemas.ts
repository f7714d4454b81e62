import {
  JSON_VALUE_MAX_BYTES,
  LIST_MAX_ELEMENTS,
  URL_MAX_BYTES,
  VALUE_MAX_BYTES,
  isListType,
  type MetafieldType,
  type ScalarType,
} from './define-types';
import { unitsOf } from './define-units';
import {
  CALENDAR_DATE,
  DATE_TIME_TEXT,
  DECIMAL_INTEGER_DIGITS,
  DECIMAL_TEXT,
  FILE_REFERENCE_TEXT,
  INTEGER_TEXT,
  MAX_SAFE_INTEGER,
  METAOBJECT_REFERENCE_TEXT,
  SINGLE_LINE,
} from './define-value-formats';
import { URL_TEXT } from './parse-url';

// decisions §8.8, §12.9: the basic format of a metafield value of each type as JSON Schema 2020-12
// (OpenAPI 3.1's dialect), for the OpenAPI document. Built from the parsers' own patterns and
// bounds; JSON-text types say what the parsed JSON must be with `contentMediaType` and
// `contentSchema`, and their outer shape with a pattern. What JSON Schema cannot say stays in words
// (VALUE_FORMAT_IN_WORDS). define-value-schemas.property.test.ts holds every schema to parseValue:
// what the server accepts, the schema accepts; what the schema accepts, the server accepts but for
// the rules in words.

type JsonSchema = { [keyword: string]: unknown };

/** What the schemas cannot state, in the words the document uses (its info.description). */
export const VALUE_FORMAT_IN_WORDS = [
  'a size in UTF-8 bytes (64 KB; json 128 KB; url, and each url of a list or link, 2 KB): maxLength counts characters',
  'the host of an http or https url as the WHATWG URL parser reads it',
  'numbers in JSON text written in plain decimal notation (no exponent; integers without a fraction; at most 13 integer and 9 fraction digits)',
  'an object key at most once in JSON text',
  "a rating's value within its own scale_min and scale_max, and scale_min at most scale_max",
] as const;

const JSON_TEXT = 'application/json';
// JSON's white space (RFC 8259), which may surround a value.
const WS = '[\\t\\n\\r ]*';
const ARRAY_TEXT = `^${WS}\\[[\\s\\S]*\\]${WS}$`;
const OBJECT_TEXT = `^${WS}\\{[\\s\\S]*\\}${WS}$`;
const ANY_JSON_TEXT = `^${WS}[-0-9"\\[{tfn]`;

const decimalBound = 10 ** DECIMAL_INTEGER_DIGITS;
// Inclusive: 9999999999999.999999999 (13 and 9 digits) reads as the double 1e13.
const DECIMAL_NUMBER: JsonSchema = {
  type: 'number',
  minimum: -decimalBound,
  maximum: decimalBound,
  description: 'Written in plain decimal notation: at most 13 integer and 9 fraction digits, no exponent.',
};
const DECIMAL_STRING: JsonSchema = { type: 'string', pattern: DECIMAL_TEXT.source };
const URL_STRING: JsonSchema = { type: 'string', pattern: URL_TEXT.source, maxLength: URL_MAX_BYTES };

function exactObject(properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

/** The parsed JSON of one measure, rating or link (a value of its own, or an element of a list). */
function objectSchemaOf(type: ScalarType): JsonSchema | undefined {
  if (type === 'weight' || type === 'volume' || type === 'dimension') {
    return exactObject({ value: DECIMAL_NUMBER, unit: { type: 'string', enum: [...unitsOf(type)] } });
  }
  if (type === 'rating') return exactObject({ value: DECIMAL_STRING, scale_min: DECIMAL_STRING, scale_max: DECIMAL_STRING });
  if (type === 'link') return exactObject({ text: { type: 'string' }, url: URL_STRING });
  return undefined;
}

/** The text of a scalar type written as a string (as a value of its own, or as a list's JSON string). */
function textSchemaOf(type: ScalarType): JsonSchema | undefined {
  switch (type) {
    case 'single_line_text_field':
      return { type: 'string', pattern: SINGLE_LINE.source, description: 'No line break.' };
    case 'multi_line_text_field':
      return { type: 'string' };
    case 'boolean':
      return { type: 'string', enum: ['true', 'false'] };
    case 'date':
      return { type: 'string', format: 'date', pattern: CALENDAR_DATE.source, description: 'YYYY-MM-DD, a real date.' };
    case 'date_time':
      return {
        type: 'string',
        pattern: DATE_TIME_TEXT.source,
        description: 'ISO 8601: YYYY-MM-DDThh:mm[:ss[.fraction]][Z|+hh:mm|-hh:mm]; no offset means UTC.',
      };
    case 'number_integer':
      return { type: 'string', pattern: INTEGER_TEXT.source, description: `Base 10, optional leading -, within +/-${MAX_SAFE_INTEGER}.` };
    case 'number_decimal':
      return { ...DECIMAL_STRING, description: 'At most 13 integer and 9 fraction digits, optional leading -.' };
    case 'url':
      return { ...URL_STRING, description: 'Absolute, scheme http, https, mailto, sms or tel.' };
    case 'file_reference':
      return { type: 'string', pattern: FILE_REFERENCE_TEXT.source };
    case 'metaobject_reference':
      return { type: 'string', pattern: METAOBJECT_REFERENCE_TEXT.source };
    default:
      return undefined;
  }
}

/** One element of a list as its JSON: integers as numbers, decimals as strings or numbers, objects, the rest strings. */
function elementSchemaOf(type: ScalarType): JsonSchema {
  // decisions §2.6: an empty element ("") is allowed in every list.
  const empty: JsonSchema = { const: '' };
  if (type === 'number_integer') return { anyOf: [{ type: 'integer', minimum: -MAX_SAFE_INTEGER, maximum: MAX_SAFE_INTEGER }, empty] };
  if (type === 'number_decimal') return { anyOf: [DECIMAL_STRING, DECIMAL_NUMBER, empty] };
  const object = objectSchemaOf(type);
  if (object !== undefined) return { anyOf: [object, empty] };
  const { description: _, ...text } = textSchemaOf(type) ?? {};
  // Text types whose own pattern takes "" need no second branch.
  return type === 'single_line_text_field' ? text : { anyOf: [text, empty] };
}

function jsonText(pattern: string, maxLength: number, contentSchema: JsonSchema, description: string): JsonSchema {
  return { type: 'string', maxLength, pattern, contentMediaType: JSON_TEXT, contentSchema, description };
}

/**
 * The JSON Schema of a value of `type` (always a string): what the basic check of decisions §8.8
 * requires, as far as JSON Schema can say it.
 */
export function valueSchemaOf(type: MetafieldType): JsonSchema {
  if (isListType(type)) {
    const element = type.slice('list.'.length) as ScalarType;
    const items = { type: 'array', maxItems: LIST_MAX_ELEMENTS, items: elementSchemaOf(element) };
    return jsonText(ARRAY_TEXT, VALUE_MAX_BYTES, items, `JSON text: an array of at most ${LIST_MAX_ELEMENTS} ${element} elements.`);
  }
  if (type === 'json') return jsonText(ANY_JSON_TEXT, JSON_VALUE_MAX_BYTES, {}, 'Any JSON text.');
  const object = objectSchemaOf(type);
  if (object !== undefined) return jsonText(OBJECT_TEXT, VALUE_MAX_BYTES, object, `JSON text: a ${type} object.`);
  const text = textSchemaOf(type);
  if (text === undefined) throw new RangeError(`no schema for ${type}`);
  return type === 'url' ? text : { ...text, maxLength: VALUE_MAX_BYTES };
}
