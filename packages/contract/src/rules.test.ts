import { describe, expect, it } from 'vitest';
import { EMAIL, INSTANT, STORE_HANDLE } from '@platform/domain/limits';
import { decimalAtMost, decimalsUpTo, namespaceRules, NOT_BLANK, PRODUCT_ID_RULES } from './rules';

const MAX = 9223372036854775807n;
const matches = (pattern: string, value: string) => new RegExp(pattern, 'u').test(value);

describe(decimalAtMost.name, () => {
  const pattern = decimalAtMost(MAX);

  it('takes every decimal up to the maximum, leading zeros too, as the server reads since_id', () => {
    for (const v of ['0', '9', '10', '0042', '999999999999999999', '9223372036854775799', '9223372036854775807', '09223372036854775807'])
      expect(matches(pattern, v), v).toBe(true);
  });

  it('refuses anything past the maximum and anything not decimal', () => {
    for (const v of [
      '',
      '-1',
      '+1',
      '1.0',
      '1e3',
      ' 1',
      '9223372036854775808',
      '9223372036854775900',
      '9300000000000000000',
      '10000000000000000000',
    ])
      expect(matches(pattern, v), v).toBe(false);
  });

  it('agrees with BigInt comparison around every digit of the maximum', () => {
    const max = MAX.toString();
    for (let i = 0; i < max.length; i++) {
      for (const d of '0123456789') {
        const v = `${max.slice(0, i)}${d}${max.slice(i + 1)}`;
        expect(matches(pattern, v), v).toBe(BigInt(v) <= MAX);
      }
    }
  });

  it('gives a small maximum its digits (128 for list bounds)', () => {
    const small = decimalAtMost(128n);
    expect(['0', '99', '128', '007'].every((v) => matches(small, v))).toBe(true);
    expect(['129', '130', '200', '1000'].some((v) => matches(small, v))).toBe(false);
  });
});

describe(decimalsUpTo.name, () => {
  it('without leading zeros, takes 0 and numbers not starting with 0 (a product id in a body)', () => {
    const ids = new RegExp(`^${decimalsUpTo(MAX, false)}$`, 'u');
    expect(['0', '7', '10', '9223372036854775807'].every((v) => ids.test(v))).toBe(true);
    expect(['00', '07', '9223372036854775808'].some((v) => ids.test(v))).toBe(false);
    expect(matches(PRODUCT_ID_RULES['pattern'] as string, 'gid://platform/Product/42')).toBe(true);
  });
});

describe('the other rules', () => {
  it('namespaces: $app: and shared names, not look-alikes of an app namespace; the stored spelling where asked', () => {
    const anyOf = (rules: ReturnType<typeof namespaceRules>, v: string) =>
      (rules['anyOf'] as { pattern: string; not?: { pattern: string } }[]).some(
        (b) => matches(b.pattern, v) && !(b.not && matches(b.not.pattern, v)),
      );
    const create = namespaceRules(false);
    expect(['custom', '$app:mine', 'app-2024-promo', 'a_b-c'].every((v) => anyOf(create, v))).toBe(true);
    expect(['ab', 'App--3--x', 'app-3--x', 'app--1--xyz', 'has space', '$app:ab'].some((v) => anyOf(create, v))).toBe(false);
    expect(anyOf(namespaceRules(true), 'app--1--xyz')).toBe(true);
    expect(anyOf(namespaceRules(true, false), '$app:mine')).toBe(false);
  });

  it('namespaces: every branch says it is a string, so a generated client types the field as one, not unknown (issue 46)', () => {
    for (const rules of [namespaceRules(false), namespaceRules(true), namespaceRules(true, false)])
      expect((rules['anyOf'] as { type?: string }[]).map((b) => b.type)).toEqual((rules['anyOf'] as unknown[]).map(() => 'string'));
  });

  it('not blank: something besides white space; never NUL', () => {
    expect(['a', ' a ', 'é'].every((v) => matches(NOT_BLANK, v))).toBe(true);
    expect(['', ' ', '\t\n', 'a\u0000'].some((v) => matches(NOT_BLANK, v))).toBe(false);
  });

  it('the domain patterns compile as JSON Schema patterns (ECMA-262, unicode)', () => {
    for (const re of [EMAIL, INSTANT, STORE_HANDLE]) expect(() => new RegExp(re.source, 'u')).not.toThrow();
  });
});
