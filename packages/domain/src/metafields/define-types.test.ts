import { describe, expect, it } from 'vitest';
import {
  JSON_VALUE_MAX_BYTES,
  LIST_MAX_ELEMENTS,
  LIST_TYPES,
  METAFIELD_TYPES,
  SCALAR_TYPES,
  URL_MAX_BYTES,
  VALUE_MAX_BYTES,
  checkedTypeOf,
  codePointLength,
  elementTypeOf,
  exceedsBytes,
  isListType,
  isSupportedType,
  maxBytesOf,
  utf8Length,
} from './define-types';

// spec "Data types named anywhere", verbatim.
const SPEC_SCALARS = [
  'single_line_text_field',
  'multi_line_text_field',
  'boolean',
  'date',
  'date_time',
  'weight',
  'volume',
  'dimension',
  'number_integer',
  'number_decimal',
  'url',
  'link',
  'file_reference',
  'rating',
  'json',
  'metaobject_reference',
];
const SPEC_LISTS = [
  'list.single_line_text_field',
  'list.date',
  'list.date_time',
  'list.weight',
  'list.volume',
  'list.dimension',
  'list.number_integer',
  'list.number_decimal',
  'list.url',
  'list.link',
  'list.file_reference',
  'list.rating',
  'list.metaobject_reference',
];

describe('type registry', () => {
  it('names exactly the types of the spec and their named list variants', () => {
    expect([...SCALAR_TYPES].sort()).toEqual([...SPEC_SCALARS].sort());
    expect([...LIST_TYPES].sort()).toEqual([...SPEC_LISTS].sort());
    expect([...METAFIELD_TYPES].sort()).toEqual([...SPEC_SCALARS, ...SPEC_LISTS].sort());
  });

  it('supports every named type and nothing else', () => {
    for (const type of [...SPEC_SCALARS, ...SPEC_LISTS]) expect(isSupportedType(type)).toBe(true);
    for (const type of [
      'list.multi_line_text_field',
      'list.boolean',
      'list.json',
      'string',
      'integer',
      '',
      'LIST.URL',
      'list.',
      'list.list.url',
    ]) {
      expect(isSupportedType(type)).toBe(false);
    }
    expect(isSupportedType(42)).toBe(false);
    expect(isSupportedType(undefined)).toBe(false);
  });

  it('tells list types and their element types apart', () => {
    for (const type of SPEC_LISTS) {
      expect(isListType(type)).toBe(true);
      expect(elementTypeOf(type)).toBe(type.slice('list.'.length));
      expect(checkedTypeOf(type as never)).toBe(type.slice('list.'.length));
    }
    for (const type of SPEC_SCALARS) {
      expect(isListType(type)).toBe(false);
      expect(elementTypeOf(type)).toBeUndefined();
      expect(checkedTypeOf(type as never)).toBe(type);
    }
    expect(elementTypeOf('list.boolean')).toBeUndefined();
  });
});

describe('size limits (decisions §8.8)', () => {
  it('are 64 KB per value, 128 KB for json, 2 KB for url, 128 list elements', () => {
    expect(VALUE_MAX_BYTES).toBe(65536);
    expect(JSON_VALUE_MAX_BYTES).toBe(131072);
    expect(URL_MAX_BYTES).toBe(2048);
    expect(LIST_MAX_ELEMENTS).toBe(128);
    expect(maxBytesOf('json')).toBe(131072);
    expect(maxBytesOf('url')).toBe(2048);
    expect(maxBytesOf('list.url')).toBe(65536);
    expect(maxBytesOf('multi_line_text_field')).toBe(65536);
  });

  it('counts UTF-8 bytes', () => {
    expect(utf8Length('abc')).toBe(3);
    expect(utf8Length('é')).toBe(2);
    expect(utf8Length('€')).toBe(3);
    expect(utf8Length('😀')).toBe(4);
    expect(utf8Length('\ud800')).toBe(3);
    expect(exceedsBytes('a'.repeat(10), 10)).toBe(false);
    expect(exceedsBytes('a'.repeat(11), 10)).toBe(true);
    expect(exceedsBytes('é'.repeat(5), 10)).toBe(false);
    expect(exceedsBytes('é'.repeat(6), 10)).toBe(true);
    expect(exceedsBytes('😀'.repeat(3), 12)).toBe(false);
    expect(exceedsBytes('😀'.repeat(3), 11)).toBe(true);
  });

  it('counts code points, not UTF-16 units (decisions §8.13)', () => {
    expect(codePointLength('abc')).toBe(3);
    expect(codePointLength('😀😀')).toBe(2);
    expect(codePointLength('a😀b')).toBe(3);
    expect(codePointLength('\ud800x')).toBe(2);
    expect(codePointLength('')).toBe(0);
  });
});
