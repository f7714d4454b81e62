import { describe, expect, it } from 'vitest';
import {
  INTEGER_OUT_OF_RANGE,
  NOT_AN_INTEGER,
  NOT_A_DATE,
  NOT_A_DATE_TIME,
  NOT_A_REAL_DATE,
  NOT_A_REAL_DATE_TIME,
  hasLineBreak,
  isResourceId,
  parseDateText,
  parseDateTimeText,
  parseDecimalText,
  parseFileReferenceText,
  parseGid,
  parseIntegerText,
  parseMetaobjectReferenceText,
} from './parse-scalars';

describe('number_integer (decisions §8.8)', () => {
  it('accepts base-10 integers within +/-9,007,199,254,740,991', () => {
    expect(parseIntegerText('0')).toEqual({ kind: 'integer', value: 0 });
    expect(parseIntegerText('-42')).toEqual({ kind: 'integer', value: -42 });
    expect(parseIntegerText('9007199254740991')).toEqual({ kind: 'integer', value: 9007199254740991 });
    expect(parseIntegerText('-9007199254740991')).toEqual({ kind: 'integer', value: -9007199254740991 });
  });
  it('refuses +, exponents, fractions, spaces and leading zeros', () => {
    for (const bad of ['+1', '1e3', '1E3', '1.0', '1.', ' 1', '1 ', '007', '', '-', '--1', '0x10', '١']) {
      expect(parseIntegerText(bad), bad).toBe(NOT_AN_INTEGER);
    }
  });
  it('refuses values beyond the range', () => {
    expect(parseIntegerText('9007199254740992')).toBe(INTEGER_OUT_OF_RANGE);
    expect(parseIntegerText('-9007199254740992')).toBe(INTEGER_OUT_OF_RANGE);
    expect(parseIntegerText('1'.repeat(400))).toBe(INTEGER_OUT_OF_RANGE);
  });
});

describe('number_decimal (decisions §8.8)', () => {
  it('accepts at most 13 integer and 9 fraction digits', () => {
    const d = parseDecimalText('1234567890123.123456789');
    expect(typeof d).toBe('object');
    if (typeof d === 'object') {
      expect(d.text).toBe('1234567890123.123456789');
      expect(d.fractionDigits).toBe(9);
      expect(d.value.toFixed(9)).toBe('1234567890123.123456789');
    }
    expect(parseDecimalText('-0.5')).toMatchObject({ text: '-0.5', fractionDigits: 1 });
    expect(parseDecimalText('12')).toMatchObject({ fractionDigits: 0 });
    expect(parseDecimalText('1.50')).toMatchObject({ fractionDigits: 2 });
  });
  it('builds the exact value on first use; the JSON text carries it as before', () => {
    const d = parseDecimalText('-1.50');
    if (typeof d === 'string') throw new Error(d);
    expect(d.value.equals('-1.5')).toBe(true);
    expect(d.value).toBe(d.value);
    expect(JSON.parse(JSON.stringify(d))).toEqual({ kind: 'decimal', text: '-1.50', value: '-1.5', fractionDigits: 2 });
  });
  it('refuses a 14th integer digit or a 10th fraction digit', () => {
    expect(parseDecimalText('12345678901234')).toBe('must have at most 13 digits before the decimal point');
    expect(parseDecimalText('-12345678901234.5')).toBe('must have at most 13 digits before the decimal point');
    expect(parseDecimalText('0.1234567891')).toBe('must have at most 9 digits after the decimal point');
  });
  it('refuses other spellings', () => {
    for (const bad of ['+1', '1e3', '.5', '5.', '1,5', '01.5', '', ' 1', 'NaN', 'Infinity', '1.2.3']) {
      expect(typeof parseDecimalText(bad), bad).toBe('string');
    }
  });
});

describe('date (decisions §8.8)', () => {
  it('accepts real YYYY-MM-DD dates', () => {
    expect(parseDateText('2026-11-22')).toEqual({ kind: 'date', text: '2026-11-22', ordinal: 20261122 });
    expect(parseDateText('2024-02-29')).toMatchObject({ ordinal: 20240229 });
    expect(parseDateText('2000-02-29')).toMatchObject({ ordinal: 20000229 });
  });
  it('refuses impossible dates and other formats', () => {
    for (const bad of ['2026-02-29', '1900-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00', '2026-01-32']) {
      expect(parseDateText(bad), bad).toBe(NOT_A_REAL_DATE);
    }
    for (const bad of ['2026-1-01', '26-01-01', '2026/01/01', '2026-01-01T00:00:00Z', '20260101', ' 2026-01-01', '']) {
      expect(parseDateText(bad), bad).toBe(NOT_A_DATE);
    }
  });
});

describe('date_time (decisions §8.8)', () => {
  it('reads instants, no offset meaning UTC', () => {
    expect(parseDateTimeText('1970-01-01T00:00:00Z')).toMatchObject({ epochSeconds: 0, nanos: 0 });
    expect(parseDateTimeText('1970-01-01T00:00:00')).toMatchObject({ epochSeconds: 0, nanos: 0 });
    expect(parseDateTimeText('1970-01-01T08:00:00+08:00')).toMatchObject({ epochSeconds: 0 });
    expect(parseDateTimeText('1969-12-31T19:00-05:00')).toMatchObject({ epochSeconds: 0 });
    expect(parseDateTimeText('2026-11-22T12:05:01.5Z')).toMatchObject({
      epochSeconds: Date.UTC(2026, 10, 22, 12, 5, 1) / 1000,
      nanos: 500_000_000,
    });
    expect(parseDateTimeText('2026-11-22T12:05:01.000000001Z')).toMatchObject({ nanos: 1 });
    expect(parseDateTimeText('0001-01-01T00:00:00Z')).toMatchObject({ epochSeconds: -62135596800 });
  });
  it('agrees with Date on ordinary instants', () => {
    for (const text of ['2024-02-29T23:59:59+01:30', '1999-12-31T23:59:59-12:00', '2038-01-19T03:14:08Z']) {
      const parsed = parseDateTimeText(text);
      expect(typeof parsed === 'object' && parsed.epochSeconds * 1000).toBe(Date.parse(text));
    }
  });
  it('refuses impossible or malformed date-times', () => {
    for (const bad of [
      '2026-02-30T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T10:60:00Z',
      '2026-01-01T10:00:60Z',
      '2026-01-01T10:00:00+24:00',
      '2026-01-01T10:00:00+01:60',
    ]) {
      expect(parseDateTimeText(bad), bad).toBe(NOT_A_REAL_DATE_TIME);
    }
    for (const bad of [
      '2026-01-01',
      '2026-01-01 10:00:00Z',
      '2026-01-01t10:00:00z',
      '2026-01-01T10Z',
      '2026-01-01T10:00:00.Z',
      '2026-01-01T10:00:00.1234567890Z',
      '2026-01-01T10:00:00+0100',
      '2026-01-01T10:00:00+01',
      '',
    ]) {
      expect(parseDateTimeText(bad), bad).toBe(NOT_A_DATE_TIME);
    }
  });
  it('keeps nanosecond precision for the comparison', () => {
    const a = parseDateTimeText('2026-01-01T00:00:00.000000001Z');
    const b = parseDateTimeText('2026-01-01T00:00:00.000000002Z');
    expect(typeof a === 'object' && typeof b === 'object' && a.epochSeconds === b.epochSeconds && a.nanos < b.nanos).toBe(true);
  });
});

describe('global ids (decisions §3.5, §8.8)', () => {
  it('accept 64-bit decimal ids only', () => {
    expect(isResourceId('1')).toBe(true);
    expect(isResourceId('9223372036854775807')).toBe(true);
    expect(isResourceId('9223372036854775808')).toBe(false);
    expect(isResourceId('0')).toBe(false);
    expect(isResourceId('01')).toBe(false);
    expect(isResourceId('-1')).toBe(false);
    expect(isResourceId('1a')).toBe(false);
    expect(parseGid('gid://platform/Video/7', ['Video'])).toEqual({ type: 'Video', id: '7' });
    expect(parseGid('gid://platform/Video/7/8', ['Video'])).toBeUndefined();
  });
  it('file_reference: MediaImage, Video or GenericFile', () => {
    expect(parseFileReferenceText('gid://platform/MediaImage/12')).toEqual({
      kind: 'file_reference',
      gid: 'gid://platform/MediaImage/12',
      fileType: 'MediaImage',
      id: '12',
    });
    expect(parseFileReferenceText('gid://platform/Video/1')).toMatchObject({ fileType: 'Video' });
    expect(parseFileReferenceText('gid://platform/GenericFile/1')).toMatchObject({ fileType: 'GenericFile' });
    for (const bad of [
      'gid://platform/Image/1',
      'gid://platform/Metaobject/1',
      'gid://shopify/MediaImage/1',
      'gid://platform/MediaImage/',
      'gid://platform/MediaImage/x',
      'GID://platform/MediaImage/1',
      '12',
    ]) {
      expect(typeof parseFileReferenceText(bad), bad).toBe('string');
    }
  });
  it('metaobject_reference: gid://platform/Metaobject/{id}', () => {
    expect(parseMetaobjectReferenceText('gid://platform/Metaobject/5')).toEqual({
      kind: 'metaobject_reference',
      gid: 'gid://platform/Metaobject/5',
      id: '5',
    });
    for (const bad of ['gid://platform/MetaobjectDefinition/5', 'gid://platform/Metaobject/0', '5', 'gid://platform/Metaobject/5 ']) {
      expect(typeof parseMetaobjectReferenceText(bad), bad).toBe('string');
    }
  });
});

describe('single line', () => {
  it('has no line breaks', () => {
    expect(hasLineBreak('a b')).toBe(false);
    expect(hasLineBreak('a\nb')).toBe(true);
    expect(hasLineBreak('a\rb')).toBe(true);
  });
});
