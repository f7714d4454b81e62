import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalsUpTo } from './decimal-range-pattern';

const whole = (body: string) => new RegExp(`^${body}$`, 'u');

describe(decimalsUpTo.name, () => {
  it('agrees with BigInt comparison for every maximum, with and without leading zeros or 0', () => {
    fc.assert(
      // n anywhere, or next to the maximum (where every digit's branch is decided).
      fc.property(
        fc.oneof(fc.bigInt({ min: 0n, max: 1000n }), fc.bigInt({ min: 0n, max: 2n ** 64n })),
        fc.bigInt({ min: 0n, max: 2n ** 65n }),
        fc.integer({ min: -12, max: 12 }),
        fc.boolean(),
        fc.nat(3),
        (max, far, delta, near, zeros) => {
          const n = near && max + BigInt(delta) >= 0n ? max + BigInt(delta) : far;
          const text = n.toString();
          expect(whole(decimalsUpTo(max, false)).test(text), `${text} <= ${max}`).toBe(n <= max);
          // With leading zeros the body is read after `0*`, as decimalAtMost writes it.
          expect(new RegExp(`^0*${decimalsUpTo(max, true)}$`, 'u').test('0'.repeat(zeros) + text), `${text} <= ${max}`).toBe(n <= max);
          if (max > 0n) expect(whole(decimalsUpTo(max, false, true)).test(text), `1 <= ${text} <= ${max}`).toBe(n >= 1n && n <= max);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('without leading zeros refuses them; positive refuses 0 and its spellings', () => {
    const max = 9007199254740991n;
    expect(['00', '07', '-0'].some((v) => whole(decimalsUpTo(max, false)).test(v))).toBe(false);
    expect(['0', '00', '01'].some((v) => whole(decimalsUpTo(max, false, true)).test(v))).toBe(false);
    expect(['1', '9', '9007199254740991'].every((v) => whole(decimalsUpTo(max, false, true)).test(v))).toBe(true);
    expect(['1', '7'].every((v) => whole(decimalsUpTo(7n, false, true)).test(v))).toBe(true);
    expect(['0', '8'].some((v) => whole(decimalsUpTo(7n, false, true)).test(v))).toBe(false);
  });
});
