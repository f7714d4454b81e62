import { z } from 'zod';

/**
 * A zod schema's check compiled to plain closures, for request bodies on the hot path (issue 17:
 * "no zod work on the hot path that a precompiled check can do"). Zod's own parse builds a context,
 * a status and a result object for every value it visits: for an import of 1,000 products that
 * was 40% of the bytes the API allocated per request and about 23 ms of its CPU (2026-11-27).
 *
 * The compiled check answers only "valid, and here is zod's output" or "not sure": every input it
 * does not pass goes to zod itself, so the refusal and its message are zod's, unchanged. For an
 * input it passes, the output is what zod returns for it: a new object per object, the schema's
 * keys in the schema's order (a key absent from the input is absent from the output), unknown keys
 * dropped (`strip`, zod's default) or kept (`passthrough`), a union's first option that passes.
 * Schemas with anything that changes or refines values (transforms, refinements, defaults,
 * coercion, string formats, `multipleOf`) are not compiled: `compileSchema` returns undefined and
 * zod does all the work. `fast-parse.test.ts` compares both on every route body of the contract.
 */
type Check = (value: unknown) => unknown;

/** What a compiled check returns for an input it does not pass. */
const NOT_SURE: unique symbol = Symbol('not sure');

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  !(value instanceof Date) &&
  !(value instanceof Map) &&
  !(value instanceof Set) &&
  !(value instanceof Promise);

/** The compiled check of `schema`, or undefined when it holds something not compiled. */
export function compileSchema(schema: z.ZodTypeAny): Check | undefined {
  try {
    return compile(schema);
  } catch (error) {
    if (error instanceof NotCompiled) return undefined;
    throw error;
  }
}

class NotCompiled extends Error {}

function compile(schema: z.ZodTypeAny): Check {
  if (schema instanceof z.ZodString) return compileString(schema);
  if (schema instanceof z.ZodNumber) return compileNumber(schema);
  if (schema instanceof z.ZodBoolean) {
    if (schema._def.coerce) throw new NotCompiled();
    return (value) => (typeof value === 'boolean' ? value : NOT_SURE);
  }
  if (schema instanceof z.ZodUnknown || schema instanceof z.ZodAny) return (value) => value;
  if (schema instanceof z.ZodNull) return (value) => (value === null ? null : NOT_SURE);
  if (schema instanceof z.ZodLiteral) {
    const literal: unknown = schema._def.value;
    return (value) => (value === literal ? value : NOT_SURE);
  }
  if (schema instanceof z.ZodEnum) {
    const values = new Set<unknown>(schema._def.values as string[]);
    return (value) => (typeof value === 'string' && values.has(value) ? value : NOT_SURE);
  }
  if (schema instanceof z.ZodOptional) {
    const inner = compile(schema._def.innerType as z.ZodTypeAny);
    return (value) => (value === undefined ? undefined : inner(value));
  }
  if (schema instanceof z.ZodNullable) {
    const inner = compile(schema._def.innerType as z.ZodTypeAny);
    return (value) => (value === null ? null : inner(value));
  }
  if (schema instanceof z.ZodArray) return compileArray(schema);
  if (schema instanceof z.ZodObject) return compileObject(schema);
  if (schema instanceof z.ZodUnion) {
    const options = (schema._def.options as z.ZodTypeAny[]).map(compile);
    return (value) => {
      for (const option of options) {
        const out = option(value);
        if (out !== NOT_SURE) return out;
      }
      return NOT_SURE;
    };
  }
  if (schema instanceof z.ZodRecord) return compileRecord(schema);
  throw new NotCompiled();
}

function compileString(schema: z.ZodString): Check {
  if (schema._def.coerce) throw new NotCompiled();
  let min = 0;
  let max = Infinity;
  for (const check of schema._def.checks) {
    if (check.kind === 'min') min = Math.max(min, check.value);
    else if (check.kind === 'max') max = Math.min(max, check.value);
    else if (check.kind === 'length') {
      min = Math.max(min, check.value);
      max = Math.min(max, check.value);
    } else throw new NotCompiled();
  }
  return (value) => (typeof value === 'string' && value.length >= min && value.length <= max ? value : NOT_SURE);
}

function compileNumber(schema: z.ZodNumber): Check {
  if (schema._def.coerce) throw new NotCompiled();
  const tests: ((n: number) => boolean)[] = [];
  for (const check of schema._def.checks) {
    if (check.kind === 'int') tests.push(Number.isInteger);
    else if (check.kind === 'finite') tests.push(Number.isFinite);
    else if (check.kind === 'min') {
      const { value: bound, inclusive } = check;
      tests.push(inclusive ? (n) => n >= bound : (n) => n > bound);
    } else if (check.kind === 'max') {
      const { value: bound, inclusive } = check;
      tests.push(inclusive ? (n) => n <= bound : (n) => n < bound);
    } else throw new NotCompiled();
  }
  return (value) => {
    if (typeof value !== 'number' || Number.isNaN(value)) return NOT_SURE;
    for (const test of tests) if (!test(value)) return NOT_SURE;
    return value;
  };
}

function compileArray(schema: z.ZodArray<z.ZodTypeAny>): Check {
  const { exactLength, minLength, maxLength } = schema._def;
  const min = Math.max(minLength?.value ?? 0, exactLength?.value ?? 0);
  const max = Math.min(maxLength?.value ?? Infinity, exactLength?.value ?? Infinity);
  const element = compile(schema._def.type);
  return (value) => {
    if (!Array.isArray(value) || value.length < min || value.length > max) return NOT_SURE;
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = element(value[i]);
      if (item === NOT_SURE) return NOT_SURE;
      out[i] = item;
    }
    return out;
  };
}

function compileObject(schema: z.AnyZodObject): Check {
  const { unknownKeys, catchall } = schema._def as { unknownKeys: string; catchall: z.ZodTypeAny };
  if (!(catchall instanceof z.ZodNever) || (unknownKeys !== 'strip' && unknownKeys !== 'passthrough')) throw new NotCompiled();
  const shape = schema.shape as Record<string, z.ZodTypeAny>;
  const keys = Object.keys(shape);
  const checks = keys.map((key) => compile(shape[key]!));
  const known = new Set(keys);
  const passthrough = unknownKeys === 'passthrough';
  return (value) => {
    if (!isPlainObject(value)) return NOT_SURE;
    const out: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const item = checks[i]!(value[key]);
      if (item === NOT_SURE) return NOT_SURE;
      // As zod: a key the input has is set (even to undefined), an absent one only when a value came out.
      if (item !== undefined || key in value) out[key] = item;
    }
    if (passthrough) {
      // As zod: unknown keys kept as they are, but never one named __proto__.
      for (const key in value) if (!known.has(key) && key !== '__proto__' && value[key] !== undefined) out[key] = value[key];
    }
    return out;
  };
}

function compileRecord(schema: z.ZodRecord): Check {
  const keyType = schema._def.keyType as z.ZodTypeAny;
  if (!(keyType instanceof z.ZodString)) throw new NotCompiled();
  const keyCheck = compileString(keyType);
  const valueCheck = compile(schema._def.valueType as z.ZodTypeAny);
  return (value) => {
    if (!isPlainObject(value)) return NOT_SURE;
    const out: Record<string, unknown> = {};
    for (const key in value) {
      if (keyCheck(key) === NOT_SURE) return NOT_SURE;
      const item = valueCheck(value[key]);
      if (item === NOT_SURE) return NOT_SURE;
      // As zod: checked like any other key, but never written out.
      if (key !== '__proto__' && item !== undefined) out[key] = item;
    }
    return out;
  };
}

/**
 * Makes `schema.safeParse` (what ts-rest calls on a request body) try the compiled check first and
 * answer zod's way: `{ success: true, data }` for an input it passes, zod's own answer otherwise.
 * Returns whether the schema was compiled. Calls with parse parameters go to zod unchanged.
 */
export function precompileSafeParse(schema: z.ZodTypeAny): boolean {
  const check = compileSchema(schema);
  if (check === undefined) return false;
  const zodSafeParse = schema.safeParse.bind(schema);
  schema.safeParse = ((data: unknown, params?: unknown) => {
    if (params === undefined) {
      const out = check(data);
      if (out !== NOT_SURE) return { success: true, data: out };
    }
    return zodSafeParse(data, params as Parameters<typeof zodSafeParse>[1]);
  }) as typeof schema.safeParse;
  return true;
}

/** A route of the contract as far as this needs it. */
interface RouteLike {
  method: string;
  body?: unknown;
}

/**
 * precompileSafeParse on the body schema of every route of `router` (nested routers too). Returns
 * the routes whose bodies were compiled and those left to zod alone, by key path.
 */
export function precompileBodies(router: object, prefix = ''): { compiled: string[]; zodOnly: string[] } {
  const result = { compiled: [] as string[], zodOnly: [] as string[] };
  for (const [key, entry] of Object.entries(router)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof (entry as RouteLike).method === 'string') {
      const body = (entry as RouteLike).body;
      if (body instanceof z.ZodType) (precompileSafeParse(body) ? result.compiled : result.zodOnly).push(path);
    } else if (typeof entry === 'object' && entry !== null) {
      const nested = precompileBodies(entry, path);
      result.compiled.push(...nested.compiled);
      result.zodOnly.push(...nested.zodOnly);
    }
  }
  return result;
}

export { NOT_SURE as COMPILED_CHECK_NOT_SURE };
