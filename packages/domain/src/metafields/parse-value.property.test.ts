import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIST_TYPES, SCALAR_TYPES } from './define-types';
import { parseValue } from './parse-value';
import { ELEMENTS, INVALID, VALID, instant, listOf, offsetMinutes, pad } from './value-arbitraries.test-support';

// decisions §8.8, property-based: generated valid values of every type pass the basic check, and
// generated near misses fail it (value-arbitraries.test-support.ts).

const passes = (type: string, raw: string) => parseValue(type, raw).ok;

describe('basic check, properties of every scalar type', () => {
  it('covers every scalar type', () => {
    expect(Object.keys(VALID).sort()).toEqual([...SCALAR_TYPES].sort());
    expect(Object.keys(INVALID).sort()).toEqual([...SCALAR_TYPES].sort());
  });
  for (const type of SCALAR_TYPES) {
    it(`${type}: valid values pass`, () => {
      fc.assert(
        fc.property(VALID[type] as fc.Arbitrary<string>, (raw) => passes(type, raw)),
        { numRuns: 200 },
      );
    });
    it(`${type}: near misses fail`, () => {
      fc.assert(
        fc.property(INVALID[type] as fc.Arbitrary<string>, (raw) => !passes(type, raw)),
        { numRuns: type === 'multi_line_text_field' ? 20 : 200 },
      );
    });
  }
});

describe('basic check, properties of every list type', () => {
  it('covers every list type', () => {
    expect(
      Object.keys(ELEMENTS)
        .map((t) => `list.${t}`)
        .sort(),
    ).toEqual([...LIST_TYPES].sort());
  });
  for (const [element, arbitrary] of Object.entries(ELEMENTS)) {
    const type = `list.${element}`;
    it(`${type}: arrays of valid elements pass, empty elements included`, () => {
      fc.assert(
        fc.property(listOf(arbitrary), (elements) => passes(type, `[${elements.join(',')}]`)),
        { numRuns: 100 },
      );
    });
    it(`${type}: one bad element fails the list`, () => {
      const bad =
        element === 'number_integer' ? fc.constant('1.5') : element === 'number_decimal' ? fc.constant('true') : fc.constant('{"x":1}');
      fc.assert(
        fc.property(listOf(arbitrary), bad, fc.nat(), (elements, wrong, at) => {
          const copy = [...elements];
          copy.splice(at % (copy.length + 1), 0, wrong);
          return !passes(type, `[${copy.join(',')}]`);
        }),
        { numRuns: 100 },
      );
    });
    it(`${type}: more than 128 elements fail`, () => {
      fc.assert(
        fc.property(arbitrary, fc.integer({ min: 129, max: 140 }), (one, n) => !passes(type, `[${Array(n).fill(one).join(',')}]`)),
        { numRuns: 10 },
      );
    });
  }
});

describe('date_time instants', () => {
  it('read the same instant whatever the offset it is written with', () => {
    fc.assert(
      fc.property(instant, offsetMinutes, (d, offset) => {
        const local = new Date(d.getTime() + offset * 60_000).toISOString().slice(0, 23);
        const abs = Math.abs(offset);
        const text = `${local}${offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 60), 2)}:${pad(abs % 60, 2)}`;
        const parsed = parseValue('date_time', text);
        return (
          parsed.ok && parsed.value.kind === 'date_time' && parsed.value.epochSeconds * 1000 + parsed.value.nanos / 1e6 === d.getTime()
        );
      }),
    );
  });
});
