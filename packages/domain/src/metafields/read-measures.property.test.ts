import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unitsOf } from './convert-units';
import type { Issue } from './format-issues';
import { valueParserFor } from './parse-value';
import { readMeasureList } from './read-measures';
import type { MetafieldType } from './define-types';

// decisions §8.8: the one-pass reader of measures (read-measures.ts) answers only where the strict
// reader accepts, and then with the same value; everywhere else the strict reader speaks. Held here
// on generated text: well-formed measures written every way JSON allows, and near misses.

// JSON's four space characters, and now and then one it does not have (vertical tab, form feed, no-break space).
const space = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom('', '', '', ' ', '\n', '\t', '\r\n  ') },
  { weight: 1, arbitrary: fc.constantFrom('\v', '\f', '\u00a0') },
);
const decimal = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 14n }), fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 10 }))
  .map(([negative, whole, fraction]) => `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`);
const number = fc.oneof(
  { weight: 6, arbitrary: decimal },
  {
    weight: 1,
    arbitrary: fc.constantFrom('1e3', '1E-2', '-0', '0.0', '+1', '01', '.5', '5.', '1.2.3', '-', '--1', '1_0', '"1"', 'null', '1 2'),
  },
);
const unitOf = (units: readonly string[]) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...units).map((u) => JSON.stringify(u)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('"k\\u0067"', '"KG"', '"ml"', '"mm"', '"lb "', '""', '"st"', '"us_gal"', '"in"', '1', 'null', '"g'),
    },
  );
const key = (name: string) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(`"${name}"`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        `"${name[0]}\\u00${name.charCodeAt(1).toString(16)}${name.slice(2)}"`,
        `"${name} "`,
        `"${name.toUpperCase()}"`,
      ),
    },
  );

/** One measure object, written with space anywhere JSON allows and, now and then, a member too many or too few. */
const measure = (units: readonly string[]) =>
  fc
    .record({
      value: fc.tuple(key('value'), number),
      unit: fc.tuple(key('unit'), unitOf(units)),
      swap: fc.boolean(),
      extra: fc.option(fc.constantFrom('"note":1', '"value":2', '"unit":"g"'), { freq: 8 }),
      drop: fc.option(fc.constantFrom('value', 'unit'), { freq: 12 }),
      spaces: fc.array(space, { minLength: 8, maxLength: 8 }),
    })
    .map(({ value, unit, swap, extra, drop, spaces: s }) => {
      const members = [`${value[0]}${s[0]}:${s[1]}${value[1]}`, `${unit[0]}${s[2]}:${s[3]}${unit[1]}`].filter(
        (_, i) => drop !== (i === 0 ? 'value' : 'unit'),
      );
      if (swap) members.reverse();
      if (extra !== null) members.push(extra);
      return `{${s[4]}${members.join(`${s[5]},${s[6]}`)}${s[7]}}`;
    });

const list = (units: readonly string[]) =>
  fc
    .tuple(
      fc.array(
        fc.oneof({ weight: 8, arbitrary: measure(units) }, { weight: 1, arbitrary: fc.constantFrom('""', '"x"', '1', '[]', '{}') }),
        { maxLength: 6 },
      ),
      fc.array(space, { minLength: 4, maxLength: 4 }),
      fc.constantFrom('', '', '', '', ',', ']', ' x'),
    )
    .map(([elements, s, tail]) => `${s[0]}[${s[1]}${elements.join(`${s[2]},`)}${s[3]}]${tail}`);

function judged(type: MetafieldType, fastPaths: boolean, raw: string): { value: unknown; issues: string[] } {
  const issues: Issue[] = [];
  const value = valueParserFor(type, { fastPaths })(raw, issues);
  // The measure's exact value and double are not own enumerable properties: written out, they are.
  return { value: JSON.parse(JSON.stringify(value ?? null)) as unknown, issues: issues.map((i) => i.message) };
}

describe('the measure reader agrees with the strict reader (decisions §8.8)', () => {
  for (const dimension of ['weight', 'volume', 'dimension'] as const) {
    const units = unitsOf(dimension);
    it(`${dimension}: the same value, or the same issues, for any text`, () => {
      fc.assert(
        fc.property(
          fc.oneof(
            measure(units),
            fc.tuple(space, measure(units), space).map((p) => p.join('')),
          ),
          (raw) => {
            expect(judged(dimension, true, raw)).toEqual(judged(dimension, false, raw));
          },
        ),
        { numRuns: 1500 },
      );
    });

    it(`list.${dimension}: the same list, or the same issues, for any text`, () => {
      fc.assert(
        fc.property(list(units), (raw) => {
          expect(judged(`list.${dimension}`, true, raw)).toEqual(judged(`list.${dimension}`, false, raw));
        }),
        { numRuns: 1500 },
      );
    });
  }

  it('keeps doubles as Number() reads the value, in every unit', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(decimal, fc.constantFrom(...unitsOf('volume'))), { minLength: 1, maxLength: 5 }), (pairs) => {
        const read = readMeasureList(`[${pairs.map(([v, u]) => `{"value":${v},"unit":"${u}"}`).join(',')}]`, 'volume');
        if (read === undefined)
          return pairs.some(([v]) => v.replace(/^-/, '').split('.')[0]!.length > 13 || (v.split('.')[1]?.length ?? 0) > 9);
        return read.elements.every((e, i) => e !== null && e.kind === 'measure' && Object.is(e.approximate, Number(pairs[i]![0])));
      }),
    );
  });

  it('gives the list limit to the strict reader', () => {
    const element = '{"value":1,"unit":"kg"}';
    expect(judged('list.weight', true, `[${Array(128).fill(element).join(',')}]`).issues).toEqual([]);
    expect(judged('list.weight', true, `[${Array(129).fill(element).join(',')}]`).issues).toEqual([
      'value: has too many elements (maximum is 128)',
    ]);
  });
});
