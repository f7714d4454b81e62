/* eslint-disable @typescript-eslint/no-explicit-any -- JSON Schema and generated values are arbitrary JSON */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';

/*
 * fast-check arbitraries of the values a JSON Schema (2020-12, OpenAPI 3.1's dialect) allows, for the
 * document-driven test (openapi.property.e2e.test.ts). Each arbitrary draws from the schema's own
 * keywords (enum, pattern, format, bounds, properties) and is then filtered by Ajv against the whole
 * schema, so what it yields is exactly what the document allows: a keyword drawn loosely here
 * (`not`, `if`/`then`, `oneOf`) costs a retry, never a wrong request.
 */

export type Schema = Record<string, any>;

/** Ajv with the document's formats, resolving `#/components/...` references against it. */
export function schemaValidator(document: Schema) {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'doc', components: document['components'] ?? {} });
  const cache = new Map<Schema, (value: unknown) => boolean>();
  return (schema: Schema): ((value: unknown) => boolean) => {
    let validate = cache.get(schema);
    if (!validate) {
      const compiled = ajv.compile(rebase(schema));
      validate = (value: unknown) => compiled(value) as boolean;
      cache.set(schema, validate);
    }
    return validate;
  };
}

/** `#/components/x` as `doc#/components/x`, for a schema compiled apart from the document. */
function rebase(schema: Schema): Schema {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, '"$ref":"doc#/'));
}

function resolve(document: Schema, schema: Schema): Schema {
  let current = schema;
  while (typeof current['$ref'] === 'string') {
    const path = (current['$ref'] as string).replace(/^#\//, '').split('/');
    current = path.reduce<any>((node, key) => node?.[key], document) ?? {};
  }
  return current;
}

const isoInstant = fc
  .tuple(
    fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true }),
    fc.constantFrom('Z', '+08:00', '-05:30', '+00:00'),
    fc.boolean(),
  )
  .map(([date, offset, fraction]) => {
    const text = date.toISOString();
    return `${fraction ? text.slice(0, 23) : text.slice(0, 19)}${offset}`;
  });

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const minLength: number = schema['minLength'] ?? 0;
  const maxLength: number = Math.min(schema['maxLength'] ?? 40, Math.max(minLength, 40) + 20);
  let base: fc.Arbitrary<string>;
  if (schema['format'] === 'email') base = fc.emailAddress();
  else if (schema['format'] === 'date-time') base = isoInstant;
  else if (schema['format'] === 'uri') base = fc.webUrl({ validSchemes: ['https'], withQueryParameters: true });
  else if (typeof schema['pattern'] === 'string') base = fc.stringMatching(new RegExp(schema['pattern'] as string));
  else base = fc.string({ minLength, maxLength, unit: fc.constantFrom('grapheme', 'binary', 'grapheme-ascii') as never });
  return base.filter((s) => [...s].length >= minLength && [...s].length <= (schema['maxLength'] ?? Infinity));
}

/** An arbitrary of the values `schema` allows, as the document states it. */
export function arbitraryOf(
  document: Schema,
  schema: Schema,
  validate: ReturnType<typeof schemaValidator>,
  depth = 0,
): fc.Arbitrary<unknown> {
  const resolved = resolve(document, schema);
  return loose(document, resolved, validate, depth).filter(validate(resolved));
}

function loose(document: Schema, schema: Schema, validate: ReturnType<typeof schemaValidator>, depth: number): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema['const']);
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as unknown[]));
  const branches = (schema['anyOf'] ?? schema['oneOf']) as Schema[] | undefined;
  if (Array.isArray(branches)) {
    const { anyOf: _a, oneOf: _o, ...rest } = schema;
    return fc.oneof(...branches.map((branch) => loose(document, { ...rest, ...resolve(document, branch) }, validate, depth)));
  }
  const types: string[] = Array.isArray(schema['type']) ? schema['type'] : schema['type'] ? [schema['type']] : [];
  if (types.length > 1) {
    // null rarely: a field's own values are what the server reads.
    return fc.oneof(
      ...types.map((type) => ({ weight: type === 'null' ? 1 : 4, arbitrary: loose(document, { ...schema, type }, validate, depth) })),
    );
  }
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema['minimum'] ?? -1_000_000, max: schema['maximum'] ?? 1_000_000 });
    case 'number':
      return fc.oneof(
        fc.integer({ min: -1_000_000, max: 1_000_000 }),
        fc.double({ noNaN: true, noDefaultInfinity: true, min: schema['minimum'] ?? -1e9, max: schema['maximum'] ?? 1e9 }),
      );
    case 'string':
      return stringOf(schema);
    case 'array': {
      const items = schema['items'] ? arbitraryOf(document, schema['items'], validate, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      const minLength: number = schema['minItems'] ?? 0;
      return fc.array(items, { minLength, maxLength: Math.max(minLength, Math.min(schema['maxItems'] ?? 4, 4)) });
    }
    case 'object': {
      const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
      const required: string[] = schema['required'] ?? [];
      if (depth > 6) return fc.constant({});
      const record = Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, arbitraryOf(document, s, validate, depth + 1)]));
      return fc.record(record, { requiredKeys: required.filter((k) => k in properties) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
