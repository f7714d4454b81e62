import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundCheck, parseBound, roughOrder } from './compile-bounds';
import { toBaseUnit, unitsOf } from './convert-units';
import { Dec, type MeasureDimension } from './define-values';
import { parseValue } from './parse-value';

// decisions §8.13, property-based: decimal and measure bounds first compare doubles and fall back to
// exact decimals when those are too close to tell; the verdict is always the exact one, also for
// values a last digit away from the bound.

const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
const decimalText = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 13n - 1n }), digits(0, 9))
  .map(([negative, whole, fraction]) => `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`);
const nonNegativeText = decimalText.map((t) => t.replace(/^-/, ''));

// A value in the decimal format near `exact`: rounded to `places`, then moved by up to two last digits.
function near(exact: InstanceType<typeof Dec>, places: number, steps: number): string | undefined {
  const v = exact.toDecimalPlaces(places).plus(new Dec(steps).times(new Dec(10).pow(-places)));
  const text = v.toFixed(places);
  return /^-?(?:0|[1-9][0-9]{0,12})(?:\.[0-9]{1,9})?$/.test(text) ? text : undefined;
}

function verdict(type: string, rule: 'min' | 'max', ruleValue: string, raw: string): boolean {
  const bound = parseBound(type as never, ruleValue);
  if (typeof bound === 'string') throw new Error(bound);
  const parsed = parseValue(type, raw);
  if (!parsed.ok || parsed.value.kind === 'list') throw new Error(raw);
  return boundCheck(bound, rule)(parsed.value as never) === null;
}

describe('bounds compare exactly (decisions §8.13)', () => {
  it('roughOrder answers only when the doubles are far apart', () => {
    expect(roughOrder(1, 2)).toBe(-1);
    expect(roughOrder(2, 1)).toBe(1);
    expect(roughOrder(0, 0)).toBe(0);
    expect(roughOrder(0.1 + 0.2, 0.3)).toBe(0);
    expect(roughOrder(1e-9, 0)).toBe(1);
  });

  it('number_decimal: the verdict of the exact comparison', () => {
    const near3 = fc.tuple(decimalText, fc.integer({ min: 0, max: 9 }), fc.integer({ min: -2, max: 2 }));
    fc.assert(
      fc.property(near3, fc.constantFrom('min' as const, 'max' as const), ([boundText, places, steps], rule) => {
        const raw = near(new Dec(boundText), places, steps);
        if (raw === undefined) return;
        const order = new Dec(raw).comparedTo(new Dec(boundText));
        expect(verdict('number_decimal', rule, boundText, raw)).toBe(rule === 'min' ? order >= 0 : order <= 0);
      }),
      { numRuns: 2000 },
    );
  });

  for (const dimension of ['weight', 'volume', 'dimension'] as MeasureDimension[]) {
    it(`${dimension}: the verdict of the exact conversion, across units`, () => {
      const units = fc.constantFrom(...unitsOf(dimension));
      const cases = fc.tuple(nonNegativeText, units, units, fc.integer({ min: 0, max: 9 }), fc.integer({ min: -2, max: 2 }));
      fc.assert(
        fc.property(cases, fc.constantFrom('min' as const, 'max' as const), ([boundText, boundUnit, unit, places, steps], rule) => {
          const base = toBaseUnit(dimension, boundUnit, new Dec(boundText));
          const raw = near(base.dividedBy(toBaseUnit(dimension, unit, new Dec(1))), places, steps);
          if (raw === undefined) return;
          const order = toBaseUnit(dimension, unit, new Dec(raw)).comparedTo(base);
          const value = `{"value":${raw},"unit":"${unit}"}`;
          expect(verdict(dimension, rule, `{"value":"${boundText}","unit":"${boundUnit}"}`, value)).toBe(
            rule === 'min' ? order >= 0 : order <= 0,
          );
        }),
        { numRuns: 1000 },
      );
    });
  }
});
