import type { MeasureDimension } from './define-values';

// decisions §8.10: the units of each measure and their factors to the dimension's base unit (g, ml,
// mm), as decimal text. A file that imports nothing heavy: the OpenAPI document states the units
// (`@platform/domain/limits`), convert-units.ts makes the factors exact decimals.
// Every factor is exact by definition:
// 1 lb = 453.59237 g (international pound), 1 oz = 1/16 lb, 1 in = 25.4 mm,
// 1 US gal = 231 in^3 = 3785.411784 ml (qt 1/4, pt 1/8, fl oz 1/128),
// 1 imperial gal = 4546.09 ml (qt 1/4, pt 1/8, fl oz 1/160).
export const UNIT_FACTORS: Readonly<Record<MeasureDimension, Readonly<Record<string, string>>>> = {
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

export const MEASURE_DIMENSIONS: readonly MeasureDimension[] = ['weight', 'volume', 'dimension'];

export function unitsOf(dimension: MeasureDimension): readonly string[] {
  return Object.keys(UNIT_FACTORS[dimension]);
}
