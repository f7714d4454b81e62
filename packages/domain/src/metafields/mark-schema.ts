import { SchemaEnv } from 'ajv/dist/compile';
import type { ValidateFunction } from 'ajv';
import { compileSchemaPattern, REGEX_MAX_ESTIMATED_SIZE } from './compile-regex';
import { estimateProgramSize } from './estimate-regex-size';
import {
  APPLICATION_UNITS,
  COST_KEYWORD,
  DATA_ITEM_UNITS,
  FORMAT_CALL_UNITS,
  FORMAT_UNITS_PER_CHAR,
  LENGTH_UNITS_PER_CHAR,
  OWN_ITEM_UNITS,
  PATTERN_TEST_UNITS,
} from './schema-check-budget';

// The `schema` rule's marking (see compile-schema.ts): before a user's JSON Schema is compiled,
// every subschema gets the counting keyword of schema-check-budget.ts, patterns are held to their
// program bounds and `$ref` pointers are checked; after compiling, uncountedRef checks that every
// `$ref` Ajv resolved lands on a marked subschema.

/** Instructions of all of a schema's distinct patterns together (each also at most REGEX_MAX_PROGRAM_SIZE). */
export const SCHEMA_MAX_PATTERN_PROGRAM = 20_000;
/**
 * Distinct patterns a schema may hold: each compiled pattern holds about 9 KB and more (re2js's
 * program, its DFA), and costs about 0.5 to 1 ms of compiling (re2js twice, its DFA, Ajv's code
 * for a patternProperties entry): 1,400 of them took 15 MB and 0.8 s (issue 8), 100 up to 0.13 s.
 */
export const SCHEMA_MAX_PATTERNS = 50;

// ---------------------------------------------------------------------------------------------
// Where subschemas are. Keywords holding data, never schemas: nothing in them is marked (their
// content is kept exactly as written), and a `$ref` may not point into them (Ajv would compile data
// as a schema that spends nothing).
const DATA_KEYWORDS: ReadonlySet<string> = new Set([
  'enum',
  'const',
  'required',
  'dependentRequired',
  '$vocabulary',
  'type',
  'default',
  'examples',
]);
// The data keywords a check compares the data with, item by item (the others are never read).
const COMPARED_DATA_KEYWORDS: ReadonlySet<string> = new Set(['enum', 'const', 'required', 'dependentRequired', 'type']);
// Keywords that go through every item or key of the data on each application.
const READS_ALL_ITEMS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'propertyNames',
  'unevaluatedProperties',
  'minProperties',
  'maxProperties',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'unevaluatedItems',
]);
// Maps whose every listed name is looked up in the data on each application: measured up to 900 ns
// per name and application on wide maps (Ajv's generated function for 100 properties and more is
// too large for V8 to optimize), so each name is charged LISTED_NAME_UNITS.
const LOOKED_UP_MAPS: ReadonlySet<string> = new Set(['properties', 'dependentSchemas', 'dependencies']);
const LISTED_NAME_UNITS = 1_000;
// Keywords holding a map of names to subschemas (a `$ref` may point into one, not at it).
const MAP_KEYWORDS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);
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

export interface Marking {
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
  if (marking.patterns.size >= SCHEMA_MAX_PATTERNS) {
    marking.problem ??= `has too many distinct patterns (at most ${SCHEMA_MAX_PATTERNS})`;
    return 0;
  }
  marking.estimated += Math.min(estimateProgramSize(source), REGEX_MAX_ESTIMATED_SIZE + 1);
  if (marking.estimated > 2 * REGEX_MAX_ESTIMATED_SIZE) {
    marking.problem ??= `has patterns too large to compile (at most ${SCHEMA_MAX_PATTERN_PROGRAM} instructions in all)`;
    return 0;
  }
  // Only its size and syntax are read here: the DFA is built when Ajv compiles it (schema-formats).
  const compiled = compileSchemaPattern(source, { dfa: false });
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
export function markSchema(node: unknown, marking: Marking): void {
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
      // The search itself is charged per character when it runs, at its engine's rate (schema-formats).
      fixed += PATTERN_TEST_UNITS;
      patternSize(value, marking);
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
        fixed += LOOKED_UP_MAPS.has(key) ? LISTED_NAME_UNITS : OWN_ITEM_UNITS;
        if (key === 'patternProperties') {
          // Each key's search is charged when it runs (schema-formats).
          perItem += PATTERN_TEST_UNITS;
          patternSize(name, marking);
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
export function uncountedRef(validate: ValidateFunction, marked: ReadonlySet<object>): string | undefined {
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
    words = fragment
      .slice(1)
      .split('/')
      .map((w) => decodeURIComponent(w).replace(/~1/g, '/').replace(/~0/g, '~'));
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
