import Ajv, { type ErrorObject, type Options } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import { RULE_VALUE_MAX_LENGTH } from './define-rules';
import { codePointLength } from './define-types';
import { markSchema, uncountedRef, type Marking } from './mark-schema';
import { jsonDepthExceeds } from './parse-json';
import { COST, metered } from './schema-check-budget';
import { CONST, ENUM, MAX_LENGTH, MIN_LENGTH, UNIQUE_ITEMS } from './schema-keywords';
import { RE2_ENGINE, schemaFormats, withPatternSession, type PatternSession } from './schema-formats';

export { SCHEMA_CHECK_BUDGET, schemaCheckMeter } from './schema-check-budget';
export { SCHEMA_MAX_PATTERN_PROGRAM, SCHEMA_MAX_PATTERNS } from './mark-schema';

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
// Also: `$data` is off, no remote `$ref` is ever fetched, patterns run on RE2, and `uniqueItems`
// (by hashing instead of Ajv's quadratic comparison), `const`, `enum` (by JSON equality),
// `maxLength` and `minLength` are the engine's own keywords (schema-keywords.ts).

/** The spec's bound on every rule value. */
export const SCHEMA_MAX_LENGTH = RULE_VALUE_MAX_LENGTH;
export const SCHEMA_MAX_DEPTH = 32;
/**
 * Objects and arrays a schema may hold. Compile time grows with this count, not with the text
 * (descriptions and enum values are cheap), and Ajv's compile is synchronous, on the event loop:
 * measured on Node 20, one core, the costliest shapes at 3,000 objects (1,500 oneOf branches each
 * with its properties, 3,000 `$dynamicRef`s) took up to 1.8 s, 2,900 described properties about
 * 1 s (issue 8: one definition stalled every request for that long, and a schema of 1,400
 * patternProperties compiled to 15 MB). 300 keeps the costliest compile near 0.15 s. It is paid
 * when the definition is created or changed, and once per process on first use of the definition.
 */
export const SCHEMA_MAX_NODES = 300;
/**
 * With `unevaluatedProperties` or `unevaluatedItems`, Ajv's compile grows faster than the schema
 * (it tracks what every branch evaluates): 1,000 objects compiled in 0.6 s, 3,000 in 3.8 s.
 */
export const SCHEMA_MAX_NODES_UNEVALUATED = 100;
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

function options(ownProperties = true): Options {
  return {
    strict: false,
    logger: false,
    // Every error is collected, so code for a subschema never nests inside the code of its siblings
    // (with a first-error stop, Ajv nests one block per property, and V8 overflows its parser stack
    // past about 3,000); the check reports the first error only.
    allErrors: true,
    $data: false,
    // Required and listed properties are own properties only. The values a schema checks are read
    // into records, which inherit nothing (parse-value.ts): there a plain lookup sees only own
    // properties, without the hasOwnProperty call per property this option adds (a fifth of a
    // check). The meta-schema's checks of schemas, plain objects of JSON.parse, keep it on, and so
    // does the `plainData` reference of compileJsonSchema.
    ownProperties,
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
  metaValidators ??= {
    '2020-12': new Ajv2020({ ...options(), allErrors: false }),
    'draft-07': new Ajv({ ...options(), allErrors: false }),
  };
  return metaValidators[dialect];
}

// Each schema compiles in an instance of its own (no meta-schemas loaded, about a millisecond), so
// `$id`s of one definition never collide with, or resolve into, another's.
function compilerAjv(dialect: Dialect, plainData: boolean): Ajv {
  const ajv =
    dialect === '2020-12'
      ? new Ajv2020({ ...options(plainData), meta: false, validateSchema: false })
      : new Ajv({ ...options(plainData), meta: false, validateSchema: false });
  for (const keyword of [UNIQUE_ITEMS, CONST, ENUM, MAX_LENGTH, MIN_LENGTH]) {
    ajv.removeKeyword(keyword.keyword as string);
    ajv.addKeyword(keyword);
  }
  ajv.addKeyword(COST);
  return ajv;
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

/**
 * Checks one JSON value, `data` as parse-value reads it (records, which inherit nothing) and `text`
 * the JSON it was read from; null when it conforms, else the problem (`/a must be integer`).
 */
export type SchemaCheck = (data: unknown, text: string) => string | null;

export type SchemaResult =
  | {
      readonly ok: true;
      readonly check: SchemaCheck;
      /** Memory the compiled schema holds, estimated in bytes (its code, its patterns' programs and DFAs). */
      readonly bytes: number;
    }
  | { readonly ok: false; readonly message: string };

/**
 * DFA building all of one schema's patterns may do together (match-dfa's allowance): work of about
 * 60 ms at most, and 1,000,000 table cells (4 MB). Patterns compiled past it stay on re2js, charged
 * at its rate when they search; which ones is decided by the schema alone (Ajv compiles its
 * patterns in the schema's order).
 */
export const SCHEMA_DFA_BUILD_WORK = 800_000;
export const SCHEMA_DFA_CELLS = 1_000_000;
/**
 * Memory of Ajv's compiled schema (its generated code and the schema environment): measured about
 * 2 KB per object or array of the schema, plus the schema's text.
 */
const AJV_BYTES_PER_NODE = 2_000;
const AJV_BYTES_PER_CHAR = 4;

const TOO_COSTLY = 'is too costly to check against this schema (it would take more than the work one value may cost)';

/**
 * Compiles a `schema` rule's text. Values are checked as parse-value reads them (records, see
 * options()); `plainData` checks them as JSON.parse reads them instead, with Ajv's ownProperties
 * on: the reference the records are held to in tests.
 */
export function compileJsonSchema(text: string, { plainData = false }: { plainData?: boolean } = {}): SchemaResult {
  // Characters are code points, as for every rule value (the rule set checks the same bound first).
  if (text.length > SCHEMA_MAX_LENGTH && codePointLength(text) > SCHEMA_MAX_LENGTH) {
    return { ok: false, message: `is too long for a schema (maximum is ${SCHEMA_MAX_LENGTH} characters)` };
  }
  if (jsonDepthExceeds(text, SCHEMA_MAX_DEPTH))
    return { ok: false, message: `is nested too deeply (maximum depth is ${SCHEMA_MAX_DEPTH})` };
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
  const marking: Marking = {
    unevaluated: false,
    patterns: new Map(),
    patternProgram: 0,
    estimated: 0,
    problem: undefined,
    marked: new Set(),
  };
  markSchema(schema, marking);
  if (marking.problem !== undefined) return { ok: false, message: marking.problem };
  if (marking.unevaluated && nodes > SCHEMA_MAX_NODES_UNEVALUATED) {
    return {
      ok: false,
      message: `is too large for unevaluatedProperties or unevaluatedItems (at most ${SCHEMA_MAX_NODES_UNEVALUATED} objects and arrays)`,
    };
  }
  const meta = metaAjv(dialect);
  if (meta.validate(META_IDS[dialect], schema) !== true) {
    return { ok: false, message: `is not a valid JSON Schema: ${describe(meta.errors?.[0] ?? undefined)}` };
  }
  let validate;
  const patterns: PatternSession = { allowance: { work: SCHEMA_DFA_BUILD_WORK, cells: SCHEMA_DFA_CELLS }, bytes: 0 };
  try {
    validate = withPatternSession(patterns, () => compilerAjv(dialect, plainData).compile(schema as object | boolean));
  } catch (e) {
    if (e instanceof RangeError) return { ok: false, message: 'is too complex to compile' };
    return { ok: false, message: `is not a valid JSON Schema: ${e instanceof Error ? e.message : String(e)}` };
  }
  if ((validate as { $async?: unknown }).$async === true) return { ok: false, message: 'must not be asynchronous ($async)' };
  const uncounted = uncountedRef(validate, marking.marked);
  if (uncounted !== undefined)
    return { ok: false, message: `has a $ref to something that is not a subschema: ${JSON.stringify(uncounted)}` };
  const run = validate;
  return {
    ok: true,
    bytes: AJV_BYTES_PER_NODE * nodes + AJV_BYTES_PER_CHAR * text.length + patterns.bytes,
    check: (data, raw) => {
      if (jsonDepthExceeds(raw, SCHEMA_VALUE_MAX_DEPTH))
        return `is nested too deeply to check (maximum depth is ${SCHEMA_VALUE_MAX_DEPTH})`;
      // The text was read as JSON already: this parse cannot fail.
      const input: unknown = plainData ? JSON.parse(raw) : data;
      // Out of budget, or a schema that recurses in place (`$ref` to itself) out of stack.
      const verdict = metered(run, input);
      return verdict === undefined ? TOO_COSTLY : verdict ? null : describe(run.errors?.[0] ?? undefined);
    },
  };
}
