import { describe, it, expect } from 'vitest';
import { parseFields, parseLimit, parseSinceId } from './parse-page-params';

const LIMIT_MESSAGE = 'limit: must be an integer between 1 and 1000';
const SINCE_MESSAGE = 'since_id: must be a non-negative integer';

describe('parseLimit', () => {
  it('defaults to 50 when absent', () => {
    expect(parseLimit(undefined)).toEqual({ ok: true, value: 50 });
    expect(parseLimit(undefined, { def: 10 })).toEqual({ ok: true, value: 10 });
  });

  it('accepts plain decimal integers from 1 to 1000, leading zeros included', () => {
    expect(parseLimit('1')).toEqual({ ok: true, value: 1 });
    expect(parseLimit('1000')).toEqual({ ok: true, value: 1000 });
    expect(parseLimit('05')).toEqual({ ok: true, value: 5 });
  });

  it('refuses an empty value, other number spellings and out-of-range values', () => {
    for (const raw of ['', '0', '1001', '-1', '+5', ' 5', '5 ', '5.0', '1e2', '0x10', 'abc', '99999999999999999999999']) {
      expect(parseLimit(raw), raw).toEqual({ ok: false, message: LIMIT_MESSAGE });
    }
  });

  it('uses a custom maximum in the check and the message', () => {
    expect(parseLimit('250', { max: 250 })).toEqual({ ok: true, value: 250 });
    expect(parseLimit('251', { max: 250 })).toEqual({ ok: false, message: 'limit: must be an integer between 1 and 250' });
  });
});

describe('parseSinceId', () => {
  it('defaults to 0 when absent', () => {
    expect(parseSinceId(undefined)).toEqual({ ok: true, value: '0' });
  });

  it('accepts non-negative 64-bit integers and drops leading zeros', () => {
    expect(parseSinceId('0')).toEqual({ ok: true, value: '0' });
    expect(parseSinceId('1050')).toEqual({ ok: true, value: '1050' });
    expect(parseSinceId('000')).toEqual({ ok: true, value: '0' });
    expect(parseSinceId('0042')).toEqual({ ok: true, value: '42' });
    expect(parseSinceId('9223372036854775807')).toEqual({ ok: true, value: '9223372036854775807' });
  });

  it('refuses empty, signed, fractional and spaced values', () => {
    for (const raw of ['', '-1', '+1', '1.0', ' 1', '1e3', 'abc']) {
      expect(parseSinceId(raw), raw).toEqual({ ok: false, message: SINCE_MESSAGE });
    }
  });

  it('refuses values past 64 bits, saying so (they are non-negative integers)', () => {
    for (const raw of ['9223372036854775808', '12345678901234567890', '00009223372036854775808']) {
      expect(parseSinceId(raw), raw).toEqual({ ok: false, message: 'since_id: must be at most 9223372036854775807 (ids are 64-bit)' });
    }
  });
});

describe('parseFields', () => {
  it('means all fields when absent or blank', () => {
    expect(parseFields(undefined)).toBeUndefined();
    expect(parseFields('')).toBeUndefined();
    expect(parseFields('  ')).toBeUndefined();
    expect(parseFields(' , ,')).toBeUndefined();
  });

  it('trims, drops empty entries and removes duplicates', () => {
    expect(parseFields(' title , ,handle,title')).toEqual(['id', 'title', 'handle']);
  });

  it('always includes id, once', () => {
    expect(parseFields('title')).toEqual(['id', 'title']);
    expect(parseFields('title,id')).toEqual(['id', 'title']);
    expect(parseFields('id')).toEqual(['id']);
  });
});
