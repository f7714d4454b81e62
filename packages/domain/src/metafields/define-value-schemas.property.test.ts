/* eslint-disable @typescript-eslint/no-explicit-any -- JSON Schemas and the values drawn from them are arbitrary JSON */
import Ajv2020 from 'ajv/dist/2020';
import formatsPlugin from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIST_TYPES, METAFIELD_TYPES, SCALAR_TYPES, type MetafieldType } from './define-types';
import { valueSchemaOf } from './define-value-schemas';
import { parseValue } from './parse-value';
import { ELEMENTS, INVALID, VALID, listOf } from './value-arbitraries.test-support';

// decisions §8.8, §12.9: the value schemas the OpenAPI document states, held to the basic check
// the server runs (parseValue). The document takes every value the server takes; a value the
// document takes is refused only by a rule it states in words (VALUE_FORMAT_IN_WORDS): these
// patterns are those refusals, and nothing else may appear.

type Schema = Record<string, any>;

const ajv = new Ajv2020({ strict: false, allErrors: false });
formatsPlugin(ajv);
const SCHEMAS = new Map<MetafieldType, Schema>(METAFIELD_TYPES.map((type) => [type, valueSchemaOf(type)]));
const schemaOf = (type: MetafieldType) => SCHEMAS.get(type) as Schema;

/** Whether the document takes `raw` as a value of `schema`, its JSON content included (Ajv only annotates content). */
function documentTakes(schema: Schema, raw: string): boolean {
  if (!ajv.validate(schema, raw)) return false;
  if (schema['contentMediaType'] !== 'application/json') return true;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return false;
  }
  return ajv.validate(schema['contentSchema'], parsed);
}

// The refusals of a value the document takes, each a rule in words: a size in bytes, a URL's host,
// how a number is written in JSON text, a key twice, a rating's own scale.
const IN_WORDS_ANY = [/^value(\[\d+\])?(\.url)?: is too long \(maximum is \d+ bytes\)$/, /^value(\[\d+\])?(\.url)?: is not a valid URL$/];
const IN_WORDS_JSON = [
  /^value(\[\d+\])?(\.value)?: (must be a decimal number \(.*\)|must have at most \d+ digits (before|after) the decimal point|must be an integer \(.*\))$/,
  /^value: is not valid JSON \(duplicate key /,
  /^value(\[\d+\])?: has a (minimum|maximum) of \S+ \(rule scale_(min|max)\)$/,
  /^value(\[\d+\])?\.scale_min: must be less than or equal to scale_max$/,
];

function refusalInWords(schema: Schema, message: string): boolean {
  const words = schema['contentMediaType'] ? [...IN_WORDS_ANY, ...IN_WORDS_JSON] : IN_WORDS_ANY;
  return words.some((w) => w.test(message));
}

// Values drawn from a value schema: the keywords these schemas use. Numbers mostly as clients write
// them (plain decimals), sometimes any double (which JSON.stringify may write with an exponent or
// 17 digits: a rule in words).
function drawn(schema: Schema): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema['const']);
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as unknown[]));
  if (Array.isArray(schema['anyOf'])) return fc.oneof(...(schema['anyOf'] as Schema[]).map(drawn));
  switch (schema['type']) {
    case 'string':
      if (schema['contentMediaType'] === 'application/json') return drawn(schema['contentSchema']).map((v) => JSON.stringify(v));
      return typeof schema['pattern'] === 'string' ? fc.stringMatching(new RegExp(schema['pattern'], 'u')) : fc.string({ maxLength: 30 });
    case 'integer':
      return fc.integer({ min: schema['minimum'], max: schema['maximum'] });
    case 'number':
      return fc.oneof(
        { weight: 4, arbitrary: fc.tuple(fc.integer({ min: -1e9, max: 1e9 }), fc.nat(6)).map(([n, k]) => n / 10 ** k) },
        { weight: 1, arbitrary: fc.double({ min: schema['minimum'], max: schema['maximum'], noNaN: true }) },
      );
    case 'array':
      return fc.array(drawn(schema['items']), { maxLength: 6 });
    case 'object':
      return fc.record(Object.fromEntries(Object.entries(schema['properties'] as Record<string, Schema>).map(([k, s]) => [k, drawn(s)])));
    default:
      return fc.jsonValue({ maxDepth: 3 });
  }
}

const valid = (type: MetafieldType): fc.Arbitrary<string> => {
  if (!type.startsWith('list.')) return VALID[type] as fc.Arbitrary<string>;
  return listOf(ELEMENTS[type.slice(5)] as fc.Arbitrary<string>).map((elements) => `[${elements.join(',')}]`);
};

describe('valueSchemaOf: the document’s value formats against the basic check (decisions §8.8, §12.9)', () => {
  it('has a schema for every type, a string schema, JSON-text types with their content', () => {
    for (const type of METAFIELD_TYPES) {
      expect(schemaOf(type)['type'], type).toBe('string');
      expect(ajv.validateSchema(schemaOf(type)), type).toBe(true);
    }
    for (const type of LIST_TYPES) expect(schemaOf(type)['contentSchema'], type).toMatchObject({ type: 'array', maxItems: 128 });
    for (const type of ['weight', 'volume', 'dimension', 'rating', 'link', 'json'] as const) {
      expect(schemaOf(type)['contentMediaType'], type).toBe('application/json');
    }
  });

  for (const type of METAFIELD_TYPES) {
    it(`${type}: the document takes every value the server takes`, () => {
      fc.assert(
        fc.property(valid(type), (raw) => {
          expect(parseValue(type, raw).ok, raw).toBe(true);
          expect(documentTakes(schemaOf(type), raw), raw).toBe(true);
        }),
        { numRuns: 100 },
      );
    });

    it(`${type}: the server takes what the document takes, but for the rules in words`, () => {
      const schema = schemaOf(type);
      let taken = 0;
      fc.assert(
        fc.property(drawn(schema), (value) => {
          const raw = value as string;
          if (!documentTakes(schema, raw)) return;
          const result = parseValue(type, raw);
          if (result.ok) taken++;
          else for (const issue of result.issues) expect(refusalInWords(schema, issue.message), `${issue.message} for ${raw}`).toBe(true);
        }),
        { numRuns: 200 },
      );
      // Most of what the document takes, the server takes: the rules in words are a small remainder.
      // A drawn rating lies within its own scale (a rule in words) about a third of the time.
      expect(taken).toBeGreaterThan(type.endsWith('rating') ? 20 : 100);
    });
  }

  for (const type of SCALAR_TYPES) {
    it(`${type}: the document refuses the near misses the server refuses, but for the rules in words`, () => {
      const schema = schemaOf(type);
      fc.assert(
        fc.property(INVALID[type] as fc.Arbitrary<string>, (raw) => {
          const result = parseValue(type, raw);
          expect(result.ok).toBe(false);
          if (!result.ok && documentTakes(schema, raw)) {
            for (const issue of result.issues) expect(refusalInWords(schema, issue.message), `${issue.message} for ${raw}`).toBe(true);
          }
        }),
        { numRuns: type === 'multi_line_text_field' ? 20 : 100 },
      );
    });
  }
});
