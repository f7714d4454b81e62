import type { Decimal } from 'decimal.js';
import { Dec, type MeasureDimension } from './define-values';

// decisions §8.10: units, compared across units after conversion to a base unit (g, ml, mm) with
// exact decimal arithmetic (§8.13). Every factor is exact by definition:
// 1 lb = 453.59237 g (international pound), 1 oz = 1/16 lb, 1 in = 25.4 mm,
// 1 US gal = 231 in^3 = 3785.411784 ml (qt 1/4, pt 1/8, fl oz 1/128),
// 1 imperial gal = 4546.09 ml (qt 1/4, pt 1/8, fl oz 1/160).
const FACTORS: Readonly<Record<MeasureDimension, Readonly<Record<string, string>>>> = {
  weight: { g: '1', kg: '1000', lb: '453.59237', oz: '28.349523125' },
  volume: {
    ml: '1',
    cl: '10',
    l: '1000',
    m3: '1000000',
    us_fl_oz: '29.5735295625',
    us_pt: '473.176473',
    us_qt: '946.352946',
    us_gal: '3785.411784',
    imp_fl_oz: '28.4130625',
    imp_pt: '568.26125',
    imp_qt: '1136.5225',
    imp_gal: '4546.09',
  },
  dimension: { mm: '1', cm: '10', m: '1000', in: '25.4', ft: '304.8', yd: '914.4' },
};

export const BASE_UNITS: Readonly<Record<MeasureDimension, string>> = { weight: 'g', volume: 'ml', dimension: 'mm' };

// Maps, not the records above: a unit is user input (`toString` must not be found on a prototype).
const DECIMAL_FACTORS = new Map<string, ReadonlyMap<string, Decimal>>(
  Object.entries(FACTORS).map(([dimension, units]) => [
    dimension,
    new Map(Object.entries(units).map(([unit, factor]) => [unit, new Dec(factor)])),
  ]),
);

export function unitsOf(dimension: MeasureDimension): readonly string[] {
  return Object.keys(FACTORS[dimension]);
}

export function isUnitOf(dimension: MeasureDimension, unit: string): boolean {
  return DECIMAL_FACTORS.get(dimension)?.has(unit) === true;
}

/** `value` in `unit`, expressed exactly in the dimension's base unit (g, ml or mm). */
export function toBaseUnit(dimension: MeasureDimension, unit: string, value: Decimal): Decimal {
  const factor = DECIMAL_FACTORS.get(dimension)?.get(unit);
  if (factor === undefined) throw new RangeError(`unknown ${dimension} unit ${unit}`);
  return value.times(factor);
}

/**
 * The factors of one dimension as doubles (unit -> base units), for a first comparison that the
 * exact one settles when it cannot decide (see compile-bounds).
 */
export function approximateFactors(dimension: MeasureDimension): ReadonlyMap<string, number> {
  return new Map(Object.entries(FACTORS[dimension]).map(([unit, factor]) => [unit, Number(factor)]));
}

export function measureDimensionOf(type: string): MeasureDimension | undefined {
  return type === 'weight' || type === 'volume' || type === 'dimension' ? type : undefined;
}
