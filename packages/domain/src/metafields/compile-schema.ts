import Ajv, { type ErrorObject, type KeywordDefinition, type Options, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import { SchemaEnv } from 'ajv/dist/compile';
import { compileSchemaPattern, REGEX_MAX_ESTIMATED_SIZE } from './compile-regex';
import { RULE_VALUE_MAX_LENGTH } from './define-rules';
import { estimateProgramSize } from './estimate-regex-size';
import { codePointLength } from './define-types';
import { jsonDepthExceeds } from './parse-json';
import {
  APPLICATION_UNITS,
  CANONICAL_UNITS_PER_CHAR,
  COST,
  COST_KEYWORD,
  DATA_ITEM_UNITS,
  FORMAT_CALL_UNITS,
  FORMAT_UNITS_PER_CHAR,
  LENGTH_UNITS_PER_CHAR,
  metered,
  OWN_ITEM_UNITS,
  PATTERN_TEST_UNITS,
  spend,
  UNIQUE_ITEM_UNITS,
} from './schema-check-budget';

import { RE2_ENGINE, schemaFormats } from './schema-formats';

export { SCHEMA_CHECK_BUDGET, schemaCheckMeter } from './schema-check-budget';

// The `schema` rule (decisions §8.11): JSON Schema 2020-12 by default, draft-07 when `$schema` says
// so, compiled once at definition time. Bounded so that one definition cannot stall the service:
//
// - at definition time: the text (the spec's 300,000 characters of any rule value), its nesting
//   and its number of objects and arrays are capped, so compiling stays bounded (measured below);
//   `$ref`s are compiled as calls, never inlined (inlining a 400-property definition into 400
//   properties took 70 s to compile); every pattern is held to the `regex` rule's program bound,
//   and all of a schema's patterns together to SCHEMA_MAX_PATTERN_PROGRAM;
// - at check time: validation work grows with schema x value (990 subschemas applied to each of
//   65,000 array items took 5 s) and, through `$ref`s, without bound (a chain of 30 definitions each
//   applying the next twice is 2^30 applications). So every subschema of the schema is given a
//   counting keyword, and a check that would spend more than SCHEMA_CHECK_BUDGET units of work is
//   stopped and the value refused: "is too costly to check". Every object in a schema position is
//   marked, wherever it is (an unknown keyword's arrays within arrays too), and after compiling,
//   every `$ref` target Ajv resolved must be a marked subschema or a boolean, else the schema is
//   refused: a target without the keyword would run uncounted.
//
// Also: `$data` is off, no remote `$ref` is ever fetched, patterns run on RE2, and `uniqueItems` is
// checked by hashing instead of Ajv's quadratic comparison.

/** The spec's bound on every rule value. */
export const SCHEMA_MAX_LENGTH = RULE_VALUE_MAX_LENGTH;
export const SCHEMA_MAX_DEPTH = 32;
/**
 * Objects and arrays a schema may hold. A 300,000-character schema of 2,900 described properties
 * (about 100 characters each) has 2,902 and compiles in about a second. Compile time grows with
 * this count, not with the text (descriptions and enum values are cheap): measured on Node 20, one
 * core, the costliest shapes at 3,000 objects (1,500 oneOf branches each with its properties,
 * 3,000 `$dynamicRef`s) took up to 1.8 s, long allOf lists about 0.6 s. It is paid when the
 * definition is created or changed, and once per process on first use of the definition.
 */
export const SCHEMA_MAX_NODES = 3_000;
/**
 * With `unevaluatedProperties` or `unevaluatedItems`, Ajv's compile grows faster than the schema
 * (it tracks what every branch evaluates): 1,000 objects compiled in 0.6 s, 3,000 in 3.8 s.
 */
export const SCHEMA_MAX_NODES_UNEVALUATED = 1_000;
/** Instructions of all of a schema's distinct patterns together (each also at most REGEX_MAX_PROGRAM_SIZE). */
export const SCHEMA_MAX_PATTERN_PROGRAM = 20_000;
/** Values nested deeper than this are refused by a schema rule rather than walked recursively. */
export const SCHEMA_VALUE_MAX_DEPTH = 256;
type Dialect = '2020-12' | 'draft-07';

const META_IDS: Readonly<Record<Dialect, string>> = {
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
  'draft-07': 'http://json-schema.org/draft-07/schema',
};

const DIALECTS: ReadonlyMap<string, Dialect> = new Map([
  ['https://json-schema.org/draft/2020-12/schema', '2020-12'],
  ['https://json-schema.org/draft/2020-12/schema#', '2020-12'],
  ['http://json-schema.org/draft-07/schema', 'draft-07'],
  ['http://json-schema.org/draft-07/schema#', 'draft-07'],
  ['https://json-schema.org/draft-07/schema', 'draft-07'],
  ['https://json-schema.org/draft-07/schema#', 'draft-07'],
]);

function options(): Options {
  return {
    strict: false,
    logger: false,
    // Every error is collected, so code for a subschema never nests inside the code of its siblings
    // (with a first-error stop, Ajv nests one block per property, and V8 overflows its parser stack
    // past about 3,000); the check reports the first error only.
    allErrors: true,
    $data: false,
    ownProperties: true,
    addUsedSchema: false,
    // Each `$ref` is a call: inlined, a definition used in N places compiles N times.
    inlineRefs: false,
    formats: schemaFormats(),
    code: { regExp: RE2_ENGINE, optimize: false },
  };
}

let metaValidators: Record<Dialect, Ajv> | undefined;

// One instance per dialect validates schemas against the meta-schema; it holds no user schema.
function metaAjv(dialect: Dialect): Ajv {
  metaValidators ??= { '2020-12': new Ajv2020({ ...options(), allErrors: false }), 'draft-07': new Ajv({ ...options(), allErrors: false }) };
  return metaValidators[dialect];
}

// Each schema compiles in an instance of its own (no meta-schemas loaded, about a millisecond), so
// `$id`s of one definition never collide with, or resolve into, another's.
function compilerAjv(dialect: Dialect): Ajv {
  const ajv = dialect === '2020-12'
    ? new Ajv2020({ ...options(), meta: false, validateSchema: false })
    : new Ajv({ ...options(), meta: false, validateSchema: false });
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword(UNIQUE_ITEMS);
  ajv.addKeyword(COST);
  return ajv;
}

// JSON equality of instances: objects regardless of key order, numbers by value.
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record).sort().map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const UNIQUE_ITEMS: KeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  error: { message: 'must NOT have duplicate items' },
  validate: (schema: boolean, data: unknown[]) => !schema || distinct(data),
};

// JSON primitives are equal exactly when a Set says so (SameValueZero; -0 and 0 are one number, as
// in canonical()); only arrays holding objects or arrays need the canonical text, whose length is
// spent on the budget (the items were not counted by the subschema's own cost).
function distinct(data: readonly unknown[]): boolean {
  spend(UNIQUE_ITEM_UNITS * data.length);
  for (const item of data) {
    if (item !== null && typeof item === 'object') {
      const texts = data.map((each) => {
        const text = canonical(each);
        spend(CANONICAL_UNITS_PER_CHAR * text.length);
        return text;
      });
      return new Set(texts).size === data.length;
    }
  }
  return new Set(data).size === data.length;
}

function describe(error: ErrorObject | undefined): string {
  if (error === undefined) return 'is invalid';
  return error.instancePath === '' ? `${error.message ?? 'is invalid'}` : `${error.instancePath} ${error.message ?? 'is invalid'}`;
}

function countNodes(value: unknown, limit: number): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && count <= limit) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    count++;
    for (const child of Object.values(node as Record<string, unknown>)) stack.push(child);
  }
  return count;
}

// ---------------------------------------------------------------------------------------------
// Where subschemas are. Keywords holding data, never schemas: nothing in them is marked (their
// content is kept exactly as written), and a `$ref` may not point into them (Ajv would compile data
// as a schema that spends nothing).
const DATA_KEYWORDS: ReadonlySet<string> = new Set(['enum', 'const', 'required', 'dependentRequired', '$vocabulary', 'type', 'default', 'examples']);
// The data keywords a check compares the data with, item by item (the others are never read).
const COMPARED_DATA_KEYWORDS: ReadonlySet<string> = new Set(['enum', 'const', 'required', 'dependentRequired', 'type']);
// Keywords that go through every item or key of the data on each application.
const READS_ALL_ITEMS: ReadonlySet<string> = new Set([
  'properties', 'patternProperties', 'additionalProperties', 'propertyNames', 'unevaluatedProperties', 'minProperties',
  'maxProperties', 'dependentRequired', 'dependentSchemas', 'dependencies', 'items', 'prefixItems', 'additionalItems',
  'contains', 'unevaluatedItems',
]);
// Keywords holding a map of names to subschemas (a `$ref` may point into one, not at it).
const MAP_KEYWORDS: ReadonlySet<string> = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);
// Every other keyword holding an object holds a subschema, and one holding an array, subschemas
// (allOf, anyOf, oneOf, prefixItems, draft-07 items); unknown keywords and annotations are read the
// same way, arrays within arrays included, as Ajv resolves `$ref`s and `$anchor`s into any of them.

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function countValues(value: unknown): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    count++;
    if (node !== null && typeof node === 'object') for (const child of Object.values(node as Record<string, unknown>)) stack.push(child);
  }
  return count;
}

interface Marking {
  /** Whether unevaluatedProperties or unevaluatedItems appears (a lower node bound applies). */
  unevaluated: boolean;
  /** Distinct patterns and their program sizes. */
  readonly patterns: Map<string, number>;
  patternProgram: number;
  estimated: number;
  problem: string | undefined;
  /** Every object given the counting keyword (a keyword of that name written by the user does not count). */
  readonly marked: Set<object>;
}

/** The program size of a schema pattern, remembered; sets `problem` when it is refused. */
function patternSize(source: string, marking: Marking): number {
  const known = marking.patterns.get(source);
  if (known !== undefined) return known;
  marking.estimated += Math.min(estimateProgramSize(source), REGEX_MAX_ESTIMATED_SIZE + 1);
  if (marking.estimated > 2 * REGEX_MAX_ESTIMATED_SIZE) {
    marking.problem ??= `has patterns too large to compile (at most ${SCHEMA_MAX_PATTERN_PROGRAM} instructions in all)`;
    return 0;
  }
  const compiled = compileSchemaPattern(source);
  if (!compiled.ok) {
    marking.problem ??= compiled.tooLarge
      ? `has a pattern too large, ${JSON.stringify(source)}: ${compiled.message}`
      : `is not a valid JSON Schema: pattern ${JSON.stringify(source)} is not a pattern RE2 can run: ${compiled.message}`;
    return 0;
  }
  marking.patterns.set(source, compiled.pattern.size);
  marking.patternProgram += compiled.pattern.size;
  if (marking.patternProgram > SCHEMA_MAX_PATTERN_PROGRAM) {
    marking.problem ??= `has patterns too large to compile (at most ${SCHEMA_MAX_PATTERN_PROGRAM} instructions in all)`;
  }
  return compiled.pattern.size;
}

/**
 * Gives every subschema under `node` the counting keyword (in place: the schema was parsed for this
 * compile alone), checking patterns and `$ref` pointers on the way. The schema's depth is bounded
 * (SCHEMA_MAX_DEPTH), so recursion is safe.
 */
function markSchema(node: unknown, marking: Marking): void {
  if (!isRecord(node)) return;
  let fixed = APPLICATION_UNITS;
  let perItem = 0;
  let perChar = 0;
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (key === COST_KEYWORD) continue;
    if (key === 'unevaluatedProperties' || key === 'unevaluatedItems') marking.unevaluated = true;
    fixed += OWN_ITEM_UNITS;
    if (DATA_KEYWORDS.has(key)) {
      if (COMPARED_DATA_KEYWORDS.has(key)) fixed += OWN_ITEM_UNITS * countValues(value);
      continue;
    }
    if (READS_ALL_ITEMS.has(key)) perItem = Math.max(perItem, DATA_ITEM_UNITS);
    if (key === 'pattern' && typeof value === 'string') {
      fixed += PATTERN_TEST_UNITS;
      perChar += patternSize(value, marking);
      continue;
    }
    if (key === 'format' && typeof value === 'string') {
      fixed += FORMAT_CALL_UNITS;
      perChar += FORMAT_UNITS_PER_CHAR;
      continue;
    }
    if (key === 'minLength' || key === 'maxLength') perChar += LENGTH_UNITS_PER_CHAR;
    if ((key === '$ref' || key === '$dynamicRef') && typeof value === 'string') {
      const problem = refProblem(value);
      if (problem !== undefined) marking.problem ??= problem;
    }
    if (MAP_KEYWORDS.has(key) && isRecord(value)) {
      // Each listed name is looked up on every application; each pattern searches every key.
      for (const name of Object.keys(value)) {
        fixed += OWN_ITEM_UNITS;
        if (key === 'patternProperties') {
          perItem += PATTERN_TEST_UNITS;
          perChar += patternSize(name, marking);
        }
        const entry = value[name];
        // An array entry is draft-07 `dependencies`' list of names, read on every application.
        if (Array.isArray(entry)) fixed += OWN_ITEM_UNITS * entry.length;
        markAll(entry, marking);
      }
      continue;
    }
    if (Array.isArray(value)) fixed += OWN_ITEM_UNITS * value.length;
    markAll(value, marking);
  }
  node[COST_KEYWORD] = [fixed, perItem, perChar];
  marking.marked.add(node);
}

/** Marks `value` as a subschema, or each item of an array (and of arrays within it) as one. */
function markAll(value: unknown, marking: Marking): void {
  if (Array.isArray(value)) for (const item of value) markAll(item, marking);
  else markSchema(value, marking);
}

/**
 * The backstop of the marking: every `$ref` target Ajv compiled (JSON pointer, anchor or `$id`,
 * however resolved; `$dynamicRef`s and `$recursiveRef`s call the root or compiled subschemas with a
 * dynamic anchor) must be a boolean or a marked subschema, else checks under it would spend
 * nothing. Read from what Ajv resolved rather than re-resolved here, so the two cannot disagree.
 * Returns the first offending reference, as Ajv resolved it.
 */
function uncountedRef(validate: ValidateFunction, marked: ReadonlySet<object>): string | undefined {
  const seen = new Set<SchemaEnv>();
  const envs: SchemaEnv[] = [validate.schemaEnv];
  for (let env = envs.pop(); env !== undefined; env = envs.pop()) {
    if (seen.has(env)) continue;
    seen.add(env);
    for (const [ref, target] of Object.entries(env.refs)) {
      const schema: unknown = target instanceof SchemaEnv ? target.schema : target;
      if (typeof schema !== 'boolean' && !(typeof schema === 'object' && schema !== null && marked.has(schema))) return ref;
      if (target instanceof SchemaEnv) envs.push(target, target.root);
    }
    envs.push(env.root);
  }
  return undefined;
}

/**
 * A `$ref` whose fragment is a JSON pointer must name a subschema: not a map of them
 * (`#/properties`), nor anything inside a data keyword (`#/enum/0`), which Ajv would compile as a
 * schema without the counting keyword. Read from the pointer's words alone, so it holds whichever
 * `$id` the pointer is relative to; it names the common mistakes before compiling, and
 * `uncountedRef` catches whatever else resolves to an unmarked target.
 */
function refProblem(ref: string): string | undefined {
  const hash = ref.indexOf('#');
  const fragment = hash < 0 ? '' : ref.slice(hash + 1);
  if (!fragment.startsWith('/')) return undefined;
  let words: string[];
  try {
    words = fragment.slice(1).split('/').map((w) => decodeURIComponent(w).replace(/~1/g, '/').replace(/~0/g, '~'));
  } catch {
    return undefined;
  }
  let inMap = false;
  for (const word of words) {
    if (inMap) {
      inMap = false;
      continue;
    }
    if (DATA_KEYWORDS.has(word)) return `has a $ref into data, not a subschema: ${JSON.stringify(ref)}`;
    if (MAP_KEYWORDS.has(word)) inMap = true;
  }
  return inMap ? `has a $ref to a map of subschemas, not a subschema: ${JSON.stringify(ref)}` : undefined;
}

/** Checks one parsed JSON value; null when it conforms, else the problem (`/a must be integer`). */
export type SchemaCheck = (data: unknown, text: string) => string | null;

export type SchemaResult = { readonly ok: true; readonly check: SchemaCheck } | { readonly ok: false; readonly message: string };

const TOO_COSTLY = 'is too costly to check against this schema (it would take more than the work one value may cost)';

export function compileJsonSchema(text: string): SchemaResult {
  // Characters are code points, as for every rule value (the rule set checks the same bound first).
  if (text.length > SCHEMA_MAX_LENGTH && codePointLength(text) > SCHEMA_MAX_LENGTH) {
    return { ok: false, message: `is too long for a schema (maximum is ${SCHEMA_MAX_LENGTH} characters)` };
  }
  if (jsonDepthExceeds(text, SCHEMA_MAX_DEPTH)) return { ok: false, message: `is nested too deeply (maximum depth is ${SCHEMA_MAX_DEPTH})` };
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch {
    return { ok: false, message: 'is not valid JSON' };
  }
  if (typeof schema !== 'boolean' && (schema === null || typeof schema !== 'object' || Array.isArray(schema))) {
    return { ok: false, message: 'must be a JSON Schema (an object or a boolean)' };
  }
  const nodes = countNodes(schema, SCHEMA_MAX_NODES);
  if (nodes > SCHEMA_MAX_NODES) return { ok: false, message: `is too large (at most ${SCHEMA_MAX_NODES} objects and arrays)` };
  const declared = typeof schema === 'object' ? (schema as Record<string, unknown>)['$schema'] : undefined;
  const dialect = declared === undefined ? '2020-12' : typeof declared === 'string' ? DIALECTS.get(declared) : undefined;
  if (dialect === undefined) {
    return { ok: false, message: `has an unsupported $schema ${JSON.stringify(declared)} (use JSON Schema 2020-12 or draft-07)` };
  }
  // Patterns and `$ref`s first: a pattern over the program bound gets its own message rather than
  // the meta-schema's "must match format regex". Marking adds a keyword the meta-schema ignores.
  const marking: Marking = { unevaluated: false, patterns: new Map(), patternProgram: 0, estimated: 0, problem: undefined, marked: new Set() };
  markSchema(schema, marking);
  if (marking.problem !== undefined) return { ok: false, message: marking.problem };
  if (marking.unevaluated && nodes > SCHEMA_MAX_NODES_UNEVALUATED) {
    return { ok: false, message: `is too large for unevaluatedProperties or unevaluatedItems (at most ${SCHEMA_MAX_NODES_UNEVALUATED} objects and arrays)` };
  }
  const meta = metaAjv(dialect);
  if (meta.validate(META_IDS[dialect], schema) !== true) {
    return { ok: false, message: `is not a valid JSON Schema: ${describe(meta.errors?.[0] ?? undefined)}` };
  }
  let validate;
  try {
    validate = compilerAjv(dialect).compile(schema as object | boolean);
  } catch (e) {
    if (e instanceof RangeError) return { ok: false, message: 'is too complex to compile' };
    return { ok: false, message: `is not a valid JSON Schema: ${e instanceof Error ? e.message : String(e)}` };
  }
  if ((validate as { $async?: unknown }).$async === true) return { ok: false, message: 'must not be asynchronous ($async)' };
  const uncounted = uncountedRef(validate, marking.marked);
  if (uncounted !== undefined) return { ok: false, message: `has a $ref to something that is not a subschema: ${JSON.stringify(uncounted)}` };
  const run = validate;
  return {
    ok: true,
    check: (data, raw) => {
      if (jsonDepthExceeds(raw, SCHEMA_VALUE_MAX_DEPTH)) return `is nested too deeply to check (maximum depth is ${SCHEMA_VALUE_MAX_DEPTH})`;
      // Out of budget, or a schema that recurses in place (`$ref` to itself) out of stack.
      return metered(() => (run(data) === true ? null : describe(run.errors?.[0] ?? undefined)), TOO_COSTLY);
    },
  };
}

