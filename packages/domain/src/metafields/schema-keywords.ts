import { _, str, type KeywordCxt, type KeywordDefinition } from 'ajv';
import ucs2length from 'ajv/dist/runtime/ucs2length';
import { or } from 'ajv/dist/compile/codegen';
import { CANONICAL_UNITS_PER_CHAR, spend, UNIQUE_ITEM_UNITS } from './schema-check-budget';

// Ajv keywords the `schema` rule replaces with its own (compile-schema.ts): code keywords, whose
// check is written into the generated code (a `validate` keyword adds a wrapper and an object per
// application). Each is added where Ajv has it in its order of keywords, or where it always was, so
// that the first error of a value is the one it was.

// uniqueItems by hashing instead of Ajv's quadratic comparison (added at the end of the array
// keywords, as it always was).
export const UNIQUE_ITEMS: KeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  error: { message: 'must NOT have duplicate items' },
  code(cxt: KeywordCxt) {
    if (cxt.schema !== true) return;
    cxt.fail(_`!${cxt.gen.scopeValue('func', { ref: distinct })}(${cxt.data})`);
  },
};

// const and enum compare by JSON equality (jsonEqual) rather than Ajv's fast-deep-equal, which calls
// a value's own `valueOf` or `toString` when it has keys of those names (`{"valueOf":1}` against
// an enum of objects threw a TypeError), and which takes objects of different prototypes (the
// records values are read into) for different values. Primitives compare with ===, as Ajv writes.
export const CONST: KeywordDefinition = {
  keyword: 'const',
  before: 'not',
  error: { message: 'must be equal to constant' },
  code(cxt: KeywordCxt) {
    cxt.fail(
      isStructured(cxt.schema)
        ? _`!${cxt.gen.scopeValue('func', { ref: jsonEqual })}(${cxt.data}, ${cxt.schemaCode})`
        : _`${cxt.data} !== ${cxt.schema as string | number | boolean | null}`,
    );
  },
};

export const ENUM: KeywordDefinition = {
  keyword: 'enum',
  schemaType: 'array',
  before: 'not',
  error: { message: 'must be equal to one of the allowed values' },
  code(cxt: KeywordCxt) {
    const { gen, data } = cxt;
    const values = cxt.schema as readonly unknown[];
    // Ajv's own message for it, which a definition is refused with.
    if (values.length === 0) throw new Error('enum must have non-empty array');
    const equal = gen.scopeValue('func', { ref: jsonEqual });
    const list = gen.const('vSchema', cxt.schemaCode);
    cxt.fail(
      _`!(${or(...values.map((v, i) => (isStructured(v) ? _`${equal}(${data}, ${list}[${i}])` : _`${data} === ${v as string | number | boolean | null}`)))})`,
    );
  },
};

// maxLength and minLength count code points, as Ajv does (ucs2length), but only when the length
// in UTF-16 units leaves the answer open: a string has at most as many code points as units and
// at least half as many. Before `pattern`, where Ajv has them.
export const MAX_LENGTH: KeywordDefinition = {
  keyword: 'maxLength',
  type: 'string',
  schemaType: 'number',
  before: 'pattern',
  error: { message: ({ schemaCode }) => str`must NOT have more than ${schemaCode} characters` },
  code(cxt: KeywordCxt) {
    const count = cxt.gen.scopeValue('func', { ref: ucs2length });
    cxt.fail(_`${cxt.data}.length > ${cxt.schemaCode} && ${count}(${cxt.data}) > ${cxt.schemaCode}`);
  },
};

export const MIN_LENGTH: KeywordDefinition = {
  keyword: 'minLength',
  type: 'string',
  schemaType: 'number',
  before: 'pattern',
  error: { message: ({ schemaCode }) => str`must NOT have fewer than ${schemaCode} characters` },
  code(cxt: KeywordCxt) {
    const count = cxt.gen.scopeValue('func', { ref: ucs2length });
    cxt.fail(
      _`${cxt.data}.length < ${cxt.schemaCode} || (${cxt.data}.length < 2 * ${cxt.schemaCode} && ${count}(${cxt.data}) < ${cxt.schemaCode})`,
    );
  },
};

function isStructured(value: unknown): boolean {
  return value !== null && typeof value === 'object';
}

/** JSON equality of two JSON values: objects by their own keys in any order, numbers by value. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isStructured(a) || !isStructured(b)) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a as object);
  if (keys.length !== Object.keys(b as object).length) return false;
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(b, key)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

// JSON equality of instances as text: objects regardless of key order, numbers by value.
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Arrays up to this long are compared item by item, without a set. */
const PAIRWISE_ITEMS = 16;

// JSON primitives are equal exactly when a Set says so (SameValueZero; -0 and 0 are one number, as
// in canonical(); NaN is no JSON value, so === says the same); only arrays holding objects or
// arrays need the canonical text, whose length is spent on the budget (the items were not counted
// by the subschema's own cost).
function distinct(data: readonly unknown[]): boolean {
  spend(UNIQUE_ITEM_UNITS * data.length);
  if (data.length <= PAIRWISE_ITEMS && !data.some(isStructured)) {
    for (let i = 1; i < data.length; i++) for (let j = 0; j < i; j++) if (data[i] === data[j]) return false;
    return true;
  }
  if (data.some(isStructured)) {
    const texts = data.map((each) => {
      const text = canonical(each);
      spend(CANONICAL_UNITS_PER_CHAR * text.length);
      return text;
    });
    return new Set(texts).size === data.length;
  }
  return new Set(data).size === data.length;
}
