import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contract } from './contract';
import { COMPILED_CHECK_NOT_SURE, compileSchema, precompileBodies, precompileSafeParse } from './fast-parse';
import { ZProductsCreate } from './operator.contract';

// The compiled body checks against zod itself: for every route body of the contract, valid inputs
// drawn from the schema and those inputs broken in every way the generator knows, the compiled check
// passes exactly what zod passes, with zod's output (same values, same keys in the same order), and
// leaves everything else to zod.

/** A small deterministic generator (mulberry32). */
function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

const ODD_VALUES: unknown[] = [
  null,
  0,
  -1,
  1.5,
  5,
  2 ** 53,
  -(2 ** 53),
  '',
  'x',
  'ünï',
  'long text!',
  true,
  false,
  [],
  {},
  [1, 'a'],
  [1, 2, 3, 4, 5],
  { a: 1 },
  { a: 'x', b: 2 },
];

/** A value zod accepts for `schema` (most of the time: unknown shapes give up with a random one). */
function sample(schema: z.ZodTypeAny, r: Rand, depth = 0): unknown {
  if (schema instanceof z.ZodOptional) return r() < 0.3 ? undefined : sample(schema._def.innerType, r, depth);
  if (schema instanceof z.ZodNullable) return r() < 0.3 ? null : sample(schema._def.innerType, r, depth);
  if (schema instanceof z.ZodString) {
    const min = schema.minLength ?? 0;
    const max = Math.min(schema.maxLength ?? min + 6, min + 6);
    const length = min + Math.floor(r() * (max - min + 1));
    return Array.from({ length }, () => pick(r, ['a', 'b', 'é', '1', ' ', '✓'])).join('');
  }
  if (schema instanceof z.ZodNumber) {
    const lo = Math.max(schema.minValue ?? -1000, -1000);
    const hi = Math.min(schema.maxValue ?? 1000, 1000);
    const n = lo + r() * (hi - lo);
    return schema.isInt ? Math.round(n) : n;
  }
  if (schema instanceof z.ZodBoolean) return r() < 0.5;
  if (schema instanceof z.ZodNull) return null;
  if (schema instanceof z.ZodLiteral) return schema._def.value;
  if (schema instanceof z.ZodEnum) return pick(r, schema._def.values as string[]);
  if (schema instanceof z.ZodUnion) return sample(pick(r, schema._def.options as z.ZodTypeAny[]), r, depth);
  if (schema instanceof z.ZodArray) {
    const min = schema._def.minLength?.value ?? schema._def.exactLength?.value ?? 0;
    const max = Math.min(schema._def.maxLength?.value ?? schema._def.exactLength?.value ?? min + 3, min + 3);
    const length = depth > 4 ? min : min + Math.floor(r() * (max - min + 1));
    return Array.from({ length }, () => sample(schema._def.type, r, depth + 1));
  }
  if (schema instanceof z.ZodObject) {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodTypeAny>)) {
      const value = sample(field, r, depth + 1);
      if (value !== undefined) out[key] = value;
    }
    return out;
  }
  if (schema instanceof z.ZodRecord) return r() < 0.5 ? {} : { k: sample(schema._def.valueType, r, depth + 1) };
  return pick(r, ODD_VALUES);
}

/** `value` broken at one random place: a wrong type, a key dropped, an unknown key, `__proto__`. */
function mutate(value: unknown, r: Rand): unknown {
  const copy = JSON.parse(JSON.stringify(value ?? null)) as unknown;
  const containers: { holder: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        containers.push({ holder: v, key: i });
        walk(x);
      });
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        containers.push({ holder: v as Record<string, unknown>, key: k });
        walk(x);
      }
    }
  };
  walk(copy);
  const kind = r();
  if (containers.length === 0 || kind < 0.1) return pick(r, ODD_VALUES);
  const { holder, key } = pick(r, containers);
  if (kind < 0.55) (holder as Record<string | number, unknown>)[key] = pick(r, ODD_VALUES);
  else if (kind < 0.7 && !Array.isArray(holder)) delete holder[key as string];
  else if (kind < 0.85 && !Array.isArray(holder)) holder[`extra_${Math.floor(r() * 9)}`] = pick(r, ODD_VALUES);
  else if (!Array.isArray(holder)) return JSON.parse(JSON.stringify(copy).replace('{', '{"__proto__":{"x":1},')) as unknown;
  return copy;
}

/** Values and key order, and `undefined` apart from absent. */
function sameOutput(a: unknown, b: unknown): void {
  expect(a).toStrictEqual(b);
  expect(JSON.stringify(a)).toBe(JSON.stringify(b));
}

function compare(schema: z.ZodTypeAny, input: unknown): 'passed' | 'left to zod' {
  const check = compileSchema(schema)!;
  const mine = check(input);
  const theirs = schema.safeParse(input);
  if (mine === COMPILED_CHECK_NOT_SURE) {
    expect(theirs.success, `zod passed what the compiled check did not: ${JSON.stringify(input)}`).toBe(false);
    return 'left to zod';
  }
  expect(theirs.success, `the compiled check passed what zod refused: ${JSON.stringify(input)}`).toBe(true);
  sameOutput(mine, theirs.data);
  return 'passed';
}

/** 400 valid inputs drawn from `schema`, each also broken once and twice, all compared with zod. */
function drawAndBreak(schema: z.ZodTypeAny, seed: number): Record<'passed' | 'left to zod', number> {
  const r = rng(seed);
  const seen = { passed: 0, 'left to zod': 0 };
  for (let i = 0; i < 400; i++) {
    const valid = sample(schema, r);
    seen[compare(schema, valid)]++;
    seen[compare(schema, mutate(valid, r))]++;
    seen[compare(schema, mutate(mutate(valid, r), r))]++;
  }
  return seen;
}

/** Every route body of the contract, by key path. */
function routeBodies(router: object, prefix = ''): [string, z.ZodTypeAny][] {
  return Object.entries(router).flatMap(([key, entry]): [string, z.ZodTypeAny][] => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof (entry as { method?: unknown }).method === 'string') {
      const body = (entry as { body?: unknown }).body;
      return body instanceof z.ZodType ? [[path, body]] : [];
    }
    return typeof entry === 'object' && entry !== null ? routeBodies(entry, path) : [];
  });
}

describe('compiled body checks (issue 17)', () => {
  const bodies = routeBodies(contract);

  it('compile the hot bodies (the product import among them) and decline what they cannot decide', () => {
    const compiled = bodies.filter(([, schema]) => compileSchema(schema) !== undefined).map(([path]) => path);
    expect(compiled).toContain('operator.createProducts');
    expect(compiled.length).toBeGreaterThan(bodies.length / 2);
    // Anything that changes or refines a value is zod's alone.
    expect(compileSchema(z.object({ a: z.string().email() }))).toBeUndefined();
    expect(compileSchema(z.object({ a: z.string().trim() }))).toBeUndefined();
    expect(compileSchema(z.object({ a: z.string() }).refine(() => true))).toBeUndefined();
    expect(compileSchema(z.object({ a: z.number().default(1) }))).toBeUndefined();
    expect(compileSchema(z.object({ a: z.coerce.number() }))).toBeUndefined();
    expect(compileSchema(z.object({ a: z.number().multipleOf(0.1) }))).toBeUndefined();
    expect(compileSchema(z.object({ a: z.string() }).strict())).toBeUndefined();
  });

  it.each(bodies.filter(([, schema]) => compileSchema(schema) !== undefined))(
    "%s: passes exactly what zod passes, with zod's output",
    (_path, schema) => {
      const seen = drawAndBreak(schema, 17);
      expect(seen.passed).toBeGreaterThan(100);
      expect(seen['left to zod']).toBeGreaterThan(100);
    },
  );

  // Every kind of node and check the compiler knows, where the contract's bodies use only some.
  const zoo: [string, z.ZodTypeAny][] = [
    ['string lengths', z.object({ a: z.string().min(2).max(4), b: z.string().length(3).optional() })],
    ['number bounds', z.object({ a: z.number().gt(0).lt(5), b: z.number().min(-1).max(1).nullish(), c: z.number().int().safe() })],
    ['array lengths', z.object({ a: z.array(z.number()).min(1).max(3), b: z.array(z.string()).length(2).nullable() })],
    ['union order', z.union([z.object({ a: z.string() }), z.object({ a: z.string(), b: z.number() }).passthrough()])],
    ['overlapping union', z.array(z.union([z.object({ a: z.unknown() }).passthrough(), z.object({ a: z.number() })]))],
    ['literal, enum, null', z.object({ k: z.literal('x'), e: z.enum(['a', 'b']), n: z.null(), l: z.literal(5).optional() })],
    ['records', z.object({ r: z.record(z.string(), z.number()), s: z.record(z.string().min(2), z.unknown()).optional() })],
    ['passthrough', z.object({ a: z.boolean(), o: z.object({ x: z.string() }).passthrough().nullish() }).passthrough()],
    ['nested nullish', z.object({ a: z.string().nullable().optional(), b: z.number().optional().nullable(), c: z.any() })],
  ];

  it.each(zoo)("%s: passes exactly what zod passes, with zod's output", (_name, schema) => {
    expect(compileSchema(schema)).toBeDefined();
    const seen = drawAndBreak(schema, 42);
    expect(seen.passed).toBeGreaterThan(50);
    expect(seen['left to zod']).toBeGreaterThan(50);
    for (const odd of ODD_VALUES) compare(schema, odd);
  });

  it("an import body: unknown keys dropped, keys in the schema's order, every rule of the product kept", () => {
    const product = {
      zzz: 'dropped',
      variants: [{ price: 19.99, sku: 'S', inventory_quantity: 3, id: 99 }],
      title: 'Shirt',
      tags: ['a', 'b'],
      combined_listing: { kept: { deep: [1] } },
    };
    const body = { products: [product, { ...product, title: 'Other' }], extra: true };
    expect(compare(ZProductsCreate, body)).toBe('passed');
    const out = compileSchema(ZProductsCreate)!(body) as { products: Record<string, unknown>[] };
    expect(Object.keys(out)).toEqual(['products']);
    expect(Object.keys(out.products[0]!)).toEqual(['title', 'tags', 'combined_listing', 'variants']);
    for (const broken of [
      { products: [] },
      { products: [{ ...product, title: '' }] },
      { products: [{ ...product, variants: [{ inventory_quantity: 1.5 }] }] },
      { products: [{ ...product, variants: [{ inventory_quantity: 2 ** 53 }] }] },
      { products: [{ ...product, tags: [1] }] },
      { products: Array.from({ length: 1001 }, () => product) },
      { product: { title: 1 } },
      [product],
      null,
    ]) {
      expect(compare(ZProductsCreate, broken)).toBe('left to zod');
    }
  });

  it("precompileSafeParse answers as zod does: the same data when valid, zod's own error when not", () => {
    const schema = z.object({ name: z.string().min(1, "can't be blank"), n: z.number().int().nullish() });
    const reference = z.object({ name: z.string().min(1, "can't be blank"), n: z.number().int().nullish() });
    expect(precompileSafeParse(schema)).toBe(true);
    for (const input of [{ name: 'a', n: 2, x: 1 }, { name: '' }, { name: 'a', n: 1.5 }, 'text']) {
      const mine = schema.safeParse(input);
      const theirs = reference.safeParse(input);
      expect(mine.success).toBe(theirs.success);
      if (mine.success && theirs.success) sameOutput(mine.data, theirs.data);
      else expect(mine.error?.issues).toEqual(theirs.error?.issues);
    }
    expect(precompileSafeParse(z.string().email())).toBe(false);
  });

  it('precompileBodies reports what it compiled and what it left to zod', () => {
    const router = {
      a: { method: 'POST', body: z.object({ x: z.string() }) },
      nested: { b: { method: 'PUT', body: z.string().url() } },
      c: { method: 'GET' },
    };
    expect(precompileBodies(router)).toEqual({ compiled: ['a'], zodOnly: ['nested.b'] });
  });
});
