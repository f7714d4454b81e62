import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findDecodedDuplicateKey, findDuplicateKey } from './find-duplicate-key';
import { lastFailure, NOT_READ, readJson } from './read-json';

// readJson reads what JSON.parse reads, to the same values, and refuses what findDuplicateKey
// refuses; findDuplicateKey's fast scan answers as the scan that decodes every key. Held here on
// generated text: JSON written every way (indented, escaped, exponents), keys given twice, and
// text one character away from JSON.

const DEEP = { maxDepth: 1_000, records: false };
const RECORDS = { maxDepth: 1_000, records: true };

/** JSON.parse's answer as readJson gives it: the value, or why not. */
function reference(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'syntax';
  }
  const duplicate = findDecodedDuplicateKey(text);
  return duplicate === undefined ? value : `duplicate-key ${duplicate}`;
}

function read(text: string, options = DEEP): unknown {
  const value = readJson(text, options);
  if (value !== NOT_READ) return value;
  return lastFailure.reason === 'duplicate-key' ? `duplicate-key ${lastFailure.duplicateKey}` : lastFailure.reason;
}

/** A copy with plain objects, and whether every object was a record (inheriting nothing). */
function plain(value: unknown, records: { all: boolean }): unknown {
  if (Array.isArray(value)) return value.map((v) => plain(v, records));
  if (value === null || typeof value !== 'object') return value;
  const prototype = Object.getPrototypeOf(value) as object | null;
  if (prototype === null || Object.getPrototypeOf(prototype) !== null || Object.keys(prototype).length > 0) records.all = false;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value))
    Object.defineProperty(out, key, {
      value: plain((value as Record<string, unknown>)[key], records),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

const text = fc.oneof(
  fc.json({ depthSize: 'medium' }),
  fc.jsonValue().map((v) => JSON.stringify(v, null, 2)),
  fc.jsonValue().map((v) => JSON.stringify(v, null, '\t').replaceAll('\n', '\r\n')),
  fc.jsonValue({ stringUnit: 'binary' }).map((v) => JSON.stringify(v)),
  fc.jsonValue().map(escaped),
);

// Escapes JSON.stringify never writes, in keys and strings: \/, \u for ASCII, upper-case hex.
function escaped(value: unknown): string {
  if (typeof value === 'string') {
    const chars = [...value].map((c) =>
      c === 'a' ? '\\u0061' : c === '/' ? '\\/' : c === 'é' ? '\\u00E9' : JSON.stringify(c).slice(1, -1),
    );
    return `"${chars.join('')}"`;
  }
  if (Array.isArray(value)) return `[${value.map(escaped).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${escaped(k)}:${escaped(v)}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

// Keys from a small alphabet, some spelled with escapes, so that objects give keys twice.
const key = fc.constantFrom('"a"', '"b"', '"\\u0061"', '"__proto__"', '"toString"', '"a\\\\"', '"\\""', '"é"', '"\\u00e9"');
const objectOf = (value: fc.Arbitrary<string>) =>
  fc.array(fc.tuple(key, value), { maxLength: 30 }).map((members) => `{${members.map(([k, v]) => `${k}:${v}`).join(',')}}`);
const withKeys: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('1', '"x"', 'null', '-0', '1e2'),
    objectOf(tie('value')),
    fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  ),
})).value;

// One character away: deleted, doubled, or replaced by one JSON gives meaning to.
const nearMiss = fc
  .tuple(text, fc.nat(), fc.constantFrom('delete', 'double', 'replace'), fc.constantFrom(...'{}[]",:\\ 0-.eEtfn\u0001'))
  .map(([t, at, how, c]) => {
    const i = at % Math.max(t.length, 1);
    if (how === 'delete') return t.slice(0, i) + t.slice(i + 1);
    if (how === 'double') return t.slice(0, i) + t[i] + t.slice(i);
    return t.slice(0, i) + c + t.slice(i + 1);
  });

describe('readJson (decisions §8.8: what JSON.parse reads, keys given twice refused)', () => {
  it('reads JSON to the values JSON.parse gives (numbers to the same double, -0 included)', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(read(t)).toStrictEqual(JSON.parse(t));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads numbers as JSON.parse does, however many digits and whatever the exponent', () => {
    const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
    const number = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
      fc
        .tuple(
          fc.constantFrom('', '-'),
          fc.integer({ min: 0, max: 9 }),
          digits(0, 25),
          fc.constantFrom('', '.'),
          digits(1, 30),
          fc.constantFrom('', 'e', 'E-', 'e+'),
          digits(1, 3),
        )
        .map(
          ([sign, lead, more, dot, fraction, e, exponent]) =>
            `${sign}${lead}${lead === 0 ? '' : more}${dot === '' ? '' : `.${fraction}`}${e === '' ? '' : `${e}${exponent}`}`,
        ),
    );
    fc.assert(
      fc.property(number, (t) => {
        expect(Object.is(read(t), JSON.parse(t)), t).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('makes records (objects that inherit nothing) holding the same values, when asked', () => {
    fc.assert(
      fc.property(text, (t) => {
        const records = { all: true };
        expect(plain(read(t, RECORDS), records)).toStrictEqual(JSON.parse(t));
        expect(records.all).toBe(true);
      }),
      { numRuns: 1000 },
    );
    const record = read('{"__proto__":{"a":1},"toString":2}', RECORDS) as Record<string, unknown>;
    expect(Object.keys(record)).toEqual(['__proto__', 'toString']);
    expect(record['toString']).toBe(2);
    expect((read('{"__proto__":{"a":1}}') as Record<string, unknown>)['a']).toBeUndefined();
  });

  it('refuses the first key given twice in one object (as findDuplicateKey), and text that is not JSON first', () => {
    fc.assert(
      fc.property(withKeys, (t) => {
        expect(read(t)).toStrictEqual(reference(t));
      }),
      { numRuns: 3000 },
    );
    expect(read('{"a":1,"a":2')).toBe('syntax');
    expect(read('[{"a":1,"b":{"b":1,"b":2},"a":3}]')).toBe('duplicate-key b');
  });

  it('refuses text one character away from JSON exactly when JSON.parse does', () => {
    fc.assert(
      fc.property(nearMiss, (t) => {
        expect(read(t)).toStrictEqual(reference(t));
      }),
      { numRuns: 5000 },
    );
  });

  it('refuses containers nested deeper than asked, and only those', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('[', '{"k":'), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 40 }),
        (opens, maxDepth) => {
          const t = `${opens.join('')}1${opens
            .map((o) => (o === '[' ? ']' : '}'))
            .reverse()
            .join('')}`;
          expect(read(t, { maxDepth, records: false })).toStrictEqual(opens.length > maxDepth ? 'too-deep' : JSON.parse(t));
        },
      ),
    );
  });
});

describe('findDuplicateKey', () => {
  it('answers as the scan that decodes every key, on any JSON', () => {
    const wide = fc
      .array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'), { minLength: 20, maxLength: 60 })
      .map((keys) => `{${keys.map((k, i) => `"${k}":${i}`).join(',')}}`);
    fc.assert(
      fc.property(fc.oneof(withKeys, text, wide), (t) => {
        expect(findDuplicateKey(t)).toBe(findDecodedDuplicateKey(t));
      }),
      { numRuns: 3000 },
    );
  });
});
