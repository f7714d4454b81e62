// What the generator (@ts-rest/open-api over @anatine/zod-openapi) writes is OpenAPI 3.0's schema
// dialect; the served document is 3.1, whose schemas are JSON Schema 2020-12. These turn the one
// into the other, and attach document-only rules to zod schemas.
import type { ZodTypeAny } from 'zod';

/** A JSON Schema (2020-12) or OpenAPI 3.0 schema object, as plain JSON. Internal to the package. */
type JsonSchema = { [keyword: string]: unknown };

/**
 * A rule the server enforces outside zod (the domain's validators, which own the messages),
 * stated on the schema the document is generated from. `@anatine/zod-openapi` merges a schema's
 * `metaOpenApi` into what it generates (its `extendApi` does the same; the property is set here
 * so that the SDK, which bundles the contract, does not carry that package). The values come from
 * the domain's constants, so the document and the check share one source.
 */
/**
 * zod's `.describe()` returns a copy without it: describe first (`documented(z.string().describe(...), rules)`),
 * or describe a wrapper (`documented(...).optional().describe(...)`).
 */
export function documented<T extends ZodTypeAny>(schema: T, rules: JsonSchema | (() => JsonSchema)): T {
  const holder = schema as T & { metaOpenApi?: JsonSchema };
  const before = holder.metaOpenApi;
  if (typeof rules !== 'function') {
    holder.metaOpenApi = { ...before, ...rules };
    return schema;
  }
  // Made when the document is generated, not when the contract is imported (the SDK bundles it).
  let made: JsonSchema | undefined;
  Object.defineProperty(holder, 'metaOpenApi', {
    configurable: true,
    enumerable: false,
    get: () => (made ??= { ...before, ...rules() }),
    set: (value: JsonSchema) => {
      made = value;
    },
  });
  return schema;
}

/**
 * decisions §3.1, docs/decisions.md: no request string may hold NUL (`\u0000`): a body holding one
 * is 400 (`http/json-shape.ts` of the API), a query holding `%00` too. Stated on every request
 * string the schemas give no stricter pattern.
 */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';

const SUBSCHEMA_LISTS = ['oneOf', 'anyOf', 'allOf', 'prefixItems'] as const;
const SUBSCHEMAS = ['items', 'not', 'if', 'then', 'else', 'contains'] as const;

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Calls `visit` on `schema` and every schema inside it, children first. */
export function walkSchema(schema: JsonSchema, visit: (schema: JsonSchema) => JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  for (const key of SUBSCHEMAS) if (isSchema(out[key])) out[key] = walkSchema(out[key], visit);
  for (const key of SUBSCHEMA_LISTS) {
    if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((s) => (isSchema(s) ? walkSchema(s, visit) : s));
  }
  if (isSchema(out['properties'])) {
    out['properties'] = Object.fromEntries(Object.entries(out['properties']).map(([k, s]) => [k, isSchema(s) ? walkSchema(s, visit) : s]));
  }
  if (isSchema(out['additionalProperties'])) out['additionalProperties'] = walkSchema(out['additionalProperties'], visit);
  return visit(out);
}

/**
 * OpenAPI 3.0's `nullable: true` as JSON Schema 2020-12 says it: `type: ["string", "null"]`
 * (with `null` among an `enum`), a `{type: "null"}` branch of a union, or nothing for a schema that
 * already admits any value. zod's `z.null()` comes out as `{type: "null"}`.
 */
function nullableTo2020(schema: JsonSchema): JsonSchema {
  if (schema['nullable'] !== true) return schema;
  const { nullable: _dropped, ...rest } = schema;
  if (rest['format'] === 'null') {
    const { format: _f, type: _t, ...annotations } = rest;
    return { ...annotations, type: 'null' };
  }
  if (typeof rest['type'] === 'string') {
    const withNull: JsonSchema = { ...rest, type: [rest['type'], 'null'] };
    if (Array.isArray(rest['enum'])) withNull['enum'] = [...(rest['enum'] as unknown[]), null];
    return withNull;
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(rest[key])) return { ...rest, [key]: [...(rest[key] as unknown[]), { type: 'null' }] };
  }
  if (Array.isArray(rest['allOf'])) {
    const { allOf, description, ...others } = rest;
    return { ...(description ? { description } : {}), anyOf: [{ ...others, allOf }, { type: 'null' }] };
  }
  return rest;
}

/** `example` is deprecated in 3.1 schemas: `examples` is JSON Schema's. */
function examplesTo2020(schema: JsonSchema): JsonSchema {
  if (!('example' in schema)) return schema;
  const { example, ...rest } = schema;
  return { ...rest, examples: [example] };
}

/** One generated schema in JSON Schema 2020-12. */
export function toJsonSchema2020(schema: JsonSchema): JsonSchema {
  return walkSchema(schema, (s) => examplesTo2020(nullableTo2020(s)));
}

/** A request schema with the NUL rule on every string that has no pattern, format, enum or const of its own. */
export function withoutNul(schema: JsonSchema): JsonSchema {
  return walkSchema(schema, (s) => {
    const types = Array.isArray(s['type']) ? (s['type'] as unknown[]) : [s['type']];
    if (!types.includes('string') || 'pattern' in s || 'format' in s || 'enum' in s || 'const' in s) return s;
    return { ...s, pattern: NO_NUL_PATTERN };
  });
}
