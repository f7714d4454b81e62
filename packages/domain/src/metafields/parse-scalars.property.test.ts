import formatsPlugin from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec } from './define-values';
import { isDateText, parseDateText, parseDecimalText } from './parse-scalars';

// The decimal format of decisions §8.8 is read by hand (one pass that also makes the double): held
// here to the regular expression it replaced, and its double to Number(). `isDateText` is held to
// parseDateText and to ajv-formats' `date`, whose place it takes in schemas.

const DECIMAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

/** The decimal check as a regular expression and two counts: the reference. */
function referenceDecimal(s: string): { fractionDigits: number } | string {
  if (!DECIMAL.test(s)) return 'must be a decimal number (digits, an optional leading - and an optional fraction, no leading zeros)';
  const dot = s.indexOf('.');
  if ((dot < 0 ? s.length : dot) - (s.startsWith('-') ? 1 : 0) > 13) return 'must have at most 13 digits before the decimal point';
  const fractionDigits = dot < 0 ? 0 : s.length - dot - 1;
  return fractionDigits > 9 ? 'must have at most 9 digits after the decimal point' : { fractionDigits };
}

const digits = (max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: max });
// Decimal-looking text: mostly well formed (up to 16 integer and 12 fraction digits, so every
// limit is crossed), and text built from the characters a number is made of.
const decimalish = fc.oneof(
  fc.tuple(fc.constantFrom('', '-'), digits(16), fc.constantFrom('', '.'), digits(12)).map((p) => p.join('')),
  fc
    .tuple(fc.constantFrom('', '-'), fc.integer({ min: 1, max: 9 }), digits(15), fc.constantFrom('', '.'), digits(9))
    .map((p) => p.join('')),
  fc.string({ unit: fc.constantFrom(...'0123456789.-+eE x'), maxLength: 12 }),
);

describe('parseDecimalText (decisions §8.8)', () => {
  it('gives the verdict and the message of the regular expression, and the fraction digits as written', () => {
    fc.assert(
      fc.property(decimalish, (s) => {
        const read = parseDecimalText(s);
        const reference = referenceDecimal(s);
        if (typeof reference === 'string') expect(read).toBe(reference);
        else expect(typeof read !== 'string' && read.fractionDigits).toBe(reference.fractionDigits);
      }),
      { numRuns: 5000 },
    );
  });

  it('gives the double Number() gives, and the exact value of the text', () => {
    fc.assert(
      fc.property(decimalish, (s) => {
        const read = parseDecimalText(s);
        if (typeof read === 'string') return;
        expect(Object.is(read.approximate, Number(s)), s).toBe(true);
        expect(read.value.toString()).toBe(new Dec(s).toString());
      }),
      { numRuns: 5000 },
    );
  });
});

describe('isDateText', () => {
  const ajvDate = formatsPlugin.get('date', 'full') as { validate: (s: string) => boolean };
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  const dateish = fc.oneof(
    fc
      .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
      .map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`),
    fc.string({ unit: fc.constantFrom(...'0123456789-/T:Z \n'), minLength: 8, maxLength: 12 }),
  );

  it("agrees with ajv-formats' date and with parseDateText", () => {
    fc.assert(
      fc.property(dateish, (s) => {
        expect(isDateText(s)).toBe(ajvDate.validate(s));
        expect(isDateText(s)).toBe(typeof parseDateText(s) !== 'string');
      }),
      { numRuns: 5000 },
    );
    expect(isDateText('2024-02-29')).toBe(true);
    expect(isDateText('2023-02-29')).toBe(false);
    expect(isDateText('2024-02-29\n')).toBe(false);
  });
});
