import Ajv, { type ErrorObject, type Format, type KeywordDefinition, type Options } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types';
import Ajv2020 from 'ajv/dist/2020';
import formatsPlugin, { type FormatName } from 'ajv-formats';
import { RE2JS } from 're2js';
import { compileSchemaPattern, isSchemaPattern } from './compile-regex';
import { jsonDepthExceeds } from './parse-json';

// The `schema` rule (decisions §8.11): JSON Schema 2020-12 by default, draft-07 when `$schema` says
// so, compiled once at definition time. Bounded so that one definition cannot stall the service:
// schema text size, nesting and node count are capped (Ajv's code generation grows faster than
// linearly and recurses), `$data` is off, no remote `$ref` is ever fetched, patterns run on RE2, and
// `uniqueItems` is checked by hashing instead of Ajv's quadratic comparison.

export const SCHEMA_MAX_LENGTH = 65_536;
export const SCHEMA_MAX_DEPTH = 32;
export const SCHEMA_MAX_NODES = 1_000;
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

const RE2_ENGINE: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    const compiled = compileSchemaPattern(pattern);
    // Ajv shares compiled patterns by this key, so it must identify the pattern.
    return { test: (s: string) => compiled.test(s), toString: () => `/${pattern}/${flags}` };
  },
  { code: 're2js' },
);

const FORMAT_NAMES: readonly FormatName[] = [
  'date', 'time', 'date-time', 'iso-time', 'iso-date-time', 'duration', 'uri', 'uri-reference',
  'uri-template', 'url', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid', 'json-pointer',
  'json-pointer-uri-fragment', 'relative-json-pointer', 'byte', 'int32', 'int64', 'float', 'double',
  'password', 'binary',
];

let formats: Record<string, Format> | undefined;

// ajv-formats' full formats, with `regex` checked by RE2 (its own uses `new RegExp` on the data)
// and, where RE2 can run them, the library's expressions moved to RE2 too.
function schemaFormats(): Record<string, Format> {
  if (formats !== undefined) return formats;
  const out: Record<string, Format> = { regex: isSchemaPattern };
  for (const name of FORMAT_NAMES) {
    const format = formatsPlugin.get(name, 'full');
    out[name] = format instanceof RegExp ? (toRe2Format(format) ?? format) : format;
  }
  formats = out;
  return out;
}

function toRe2Format(re: RegExp): ((s: string) => boolean) | undefined {
  try {
    const compiled = RE2JS.compile(RE2JS.translateRegExp(re), re.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    return (s) => compiled.test(s);
  } catch {
    return undefined;
  }
}

function options(): Options {
  return {
    strict: false,
    logger: false,
    allErrors: false,
    $data: false,
    ownProperties: true,
    addUsedSchema: false,
    formats: schemaFormats(),
    code: { regExp: RE2_ENGINE, optimize: false },
  };
}

let metaValidators: Record<Dialect, Ajv> | undefined;

// One instance per dialect validates schemas against the meta-schema; it holds no user schema.
function metaAjv(dialect: Dialect): Ajv {
  metaValidators ??= { '2020-12': new Ajv2020(options()), 'draft-07': new Ajv(options()) };
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
// in canonical()); only arrays holding objects or arrays need the canonical text.
function distinct(data: readonly unknown[]): boolean {
  for (const item of data) {
    if (item !== null && typeof item === 'object') return new Set(data.map(canonical)).size === data.length;
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

/** Checks one parsed JSON value; null when it conforms, else the problem (`/a must be integer`). */
export type SchemaCheck = (data: unknown, text: string) => string | null;

export type SchemaResult = { readonly ok: true; readonly check: SchemaCheck } | { readonly ok: false; readonly message: string };

export function compileJsonSchema(text: string): SchemaResult {
  if (text.length > SCHEMA_MAX_LENGTH) return { ok: false, message: `is too long for a schema (maximum is ${SCHEMA_MAX_LENGTH} characters)` };
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
  if (countNodes(schema, SCHEMA_MAX_NODES) > SCHEMA_MAX_NODES) {
    return { ok: false, message: `is too large (at most ${SCHEMA_MAX_NODES} objects and arrays)` };
  }
  const declared = typeof schema === 'object' ? (schema as Record<string, unknown>)['$schema'] : undefined;
  const dialect = declared === undefined ? '2020-12' : typeof declared === 'string' ? DIALECTS.get(declared) : undefined;
  if (dialect === undefined) {
    return { ok: false, message: `has an unsupported $schema ${JSON.stringify(declared)} (use JSON Schema 2020-12 or draft-07)` };
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
  const run = validate;
  return {
    ok: true,
    check: (data, raw) => {
      if (jsonDepthExceeds(raw, SCHEMA_VALUE_MAX_DEPTH)) return `is nested too deeply to check (maximum depth is ${SCHEMA_VALUE_MAX_DEPTH})`;
      return run(data) === true ? null : describe(run.errors?.[0] ?? undefined);
    },
  };
}
