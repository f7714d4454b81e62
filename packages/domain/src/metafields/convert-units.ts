import type { Decimal } from 'decimal.js';
import { UNIT_FACTORS } from './define-units';
import { Dec, type MeasureDimension } from './define-values';

// decisions §8.10: units, compared across units after conversion to a base unit (g, ml, mm) with
// exact decimal arithmetic (§8.13). The units and their factors: define-units.ts.
export { unitsOf } from './define-units';

export const BASE_UNITS: Readonly<Record<MeasureDimension, string>> = { weight: 'g', volume: 'ml', dimension: 'mm' };

// Maps, not the records above: a unit is user input (`toString` must not be found on a prototype).
const DECIMAL_FACTORS = new Map<string, ReadonlyMap<string, Decimal>>(
  Object.entries(UNIT_FACTORS).map(([dimension, units]) => [
    dimension,
    new Map(Object.entries(units).map(([unit, factor]) => [unit, new Dec(factor)])),
  ]),
);

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
  return new Map(Object.entries(UNIT_FACTORS[dimension]).map(([unit, factor]) => [unit, Number(factor)]));
}

export function measureDimensionOf(type: string): MeasureDimension | undefined {
  return type === 'weight' || type === 'volume' || type === 'dimension' ? type : undefined;
}
