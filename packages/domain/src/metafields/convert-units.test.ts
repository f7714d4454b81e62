import { describe, expect, it } from 'vitest';
import { BASE_UNITS, isUnitOf, toBaseUnit, unitsOf } from './convert-units';
import { Dec } from './define-values';

const base = (dimension: 'weight' | 'volume' | 'dimension', unit: string, value: string) =>
  toBaseUnit(dimension, unit, new Dec(value)).toString();

describe('units (decisions §8.10)', () => {
  it('lists exactly the units of §8.10', () => {
    expect(unitsOf('weight')).toEqual(['g', 'kg', 'lb', 'oz']);
    expect(unitsOf('volume')).toEqual([
      'ml',
      'cl',
      'l',
      'm3',
      'us_fl_oz',
      'us_pt',
      'us_qt',
      'us_gal',
      'imp_fl_oz',
      'imp_pt',
      'imp_qt',
      'imp_gal',
    ]);
    expect(unitsOf('dimension')).toEqual(['mm', 'cm', 'm', 'in', 'ft', 'yd']);
    expect(BASE_UNITS).toEqual({ weight: 'g', volume: 'ml', dimension: 'mm' });
    expect(isUnitOf('weight', 'kg')).toBe(true);
    expect(isUnitOf('weight', 'KG')).toBe(false);
    expect(isUnitOf('weight', 'ml')).toBe(false);
    expect(() => toBaseUnit('weight', 'st', new Dec(1))).toThrow(RangeError);
  });

  it('uses the exact definitions of the units', () => {
    expect(base('weight', 'lb', '1')).toBe('453.59237');
    expect(base('weight', 'oz', '16')).toBe('453.59237');
    expect(base('weight', 'kg', '1')).toBe('1000');
    expect(base('dimension', 'in', '1')).toBe('25.4');
    expect(base('dimension', 'ft', '1')).toBe(base('dimension', 'in', '12'));
    expect(base('dimension', 'yd', '1')).toBe(base('dimension', 'ft', '3'));
    expect(base('dimension', 'm', '1')).toBe(base('dimension', 'cm', '100'));
    expect(base('volume', 'us_gal', '1')).toBe('3785.411784');
    expect(base('volume', 'us_gal', '1')).toBe(base('volume', 'us_qt', '4'));
    expect(base('volume', 'us_gal', '1')).toBe(base('volume', 'us_pt', '8'));
    expect(base('volume', 'us_gal', '1')).toBe(base('volume', 'us_fl_oz', '128'));
    expect(base('volume', 'imp_gal', '1')).toBe('4546.09');
    expect(base('volume', 'imp_gal', '1')).toBe(base('volume', 'imp_qt', '4'));
    expect(base('volume', 'imp_gal', '1')).toBe(base('volume', 'imp_pt', '8'));
    expect(base('volume', 'imp_gal', '1')).toBe(base('volume', 'imp_fl_oz', '160'));
    expect(base('volume', 'm3', '1')).toBe(base('volume', 'l', '1000'));
    expect(base('volume', 'l', '1')).toBe(base('volume', 'cl', '100'));
  });

  it('converts without rounding', () => {
    expect(base('weight', 'lb', '1234567890123.123456789')).toBe('559990575206847.16056751509993');
    expect(base('volume', 'us_fl_oz', '0.000000001')).toBe('0.0000000295735295625');
  });
});
