import { SCHEMA_VALUE_MAX_DEPTH, compileJsonSchema, type SchemaCheck } from './compile-schema';
import { NOT_READ, readJson } from '../json/read-json';

// Helpers of the compile-schema*.test.ts files (not a test file itself).

export function compiled(schema: unknown): SchemaCheck {
  const result = compileJsonSchema(JSON.stringify(schema));
  if (!result.ok) throw new Error(result.message);
  return result.check;
}

export function refused(text: string): string {
  const result = compileJsonSchema(text);
  if (result.ok) throw new Error(`compiled: ${text}`);
  return result.message;
}

/** The value as a `json` value is read before its schema checks it (parse-value: records, which inherit nothing). */
export function read(text: string): unknown {
  const value = readJson(text, { maxDepth: SCHEMA_VALUE_MAX_DEPTH, records: true });
  if (value === NOT_READ) throw new Error(`not read: ${text.slice(0, 100)}`);
  return value;
}

export const check = (schema: unknown, data: unknown) => {
  const text = JSON.stringify(data);
  return compiled(schema)(read(text), text);
};

/**
 * `levels` subschemas in an array at `path` (an unknown keyword's nested arrays, say), each applying
 * the next twice through a JSON-pointer `$ref`; the last one accepts strings. The root applies the first.
 */
export function doublingChain(path: readonly string[], levels: number): Record<string, unknown> {
  const at = (i: number) => `#/${[...path, String(i)].join('/')}`;
  const chain = Array.from({ length: levels }, (_, i) =>
    i === levels - 1 ? { type: 'string' } : { allOf: [{ $ref: at(i + 1) }, { $ref: at(i + 1) }] },
  );
  let holder: unknown = chain;
  for (let i = path.length - 1; i >= 1; i--) holder = /^[0-9]+$/.test(path[i] ?? '') ? [holder] : { [path[i] ?? '']: holder };
  return { [path[0] ?? '']: holder, $ref: at(0) };
}
