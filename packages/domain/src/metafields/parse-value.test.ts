import { describe, expect, it } from 'vitest';
import { LIST_TYPES, SCALAR_TYPES } from './define-types';
import { parseValue } from './parse-value';

function problems(type: string, raw: string): string[] {
  const result = parseValue(type, raw);
  return result.ok ? [] : result.issues.map((i) => i.message);
}

function value(type: string, raw: string): unknown {
  const result = parseValue(type, raw);
  if (!result.ok) throw new Error(`${type} ${raw}: ${result.issues.map((i) => i.message).join('; ')}`);
  return result.value;
}

// One valid value of each type, as the spec's formats write it (decisions §8.8).
const VALID: Readonly<Record<string, string>> = {
  single_line_text_field: 'Hello, world',
  multi_line_text_field: 'line 1\nline 2',
  boolean: 'true',
  date: '2026-11-22',
  date_time: '2026-11-22T12:05:01+08:00',
  weight: '{"value":1.5,"unit":"kg"}',
  volume: '{"value":250,"unit":"ml"}',
  dimension: '{"value":12.5,"unit":"cm"}',
  number_integer: '-42',
  number_decimal: '19.99',
  url: 'https://example.com/page',
  link: '{"text":"Home","url":"https://example.com"}',
  file_reference: 'gid://platform/MediaImage/1',
  rating: '{"value":"4.5","scale_min":"1","scale_max":"5"}',
  json: '{"a":[1,2,{"b":null}]}',
  metaobject_reference: 'gid://platform/Metaobject/9',
  'list.single_line_text_field': '["a","b"]',
  'list.date': '["2026-01-01","2026-12-31"]',
  'list.date_time': '["2026-01-01T00:00:00Z","2026-01-01T00:00:00"]',
  'list.weight': '[{"value":1,"unit":"lb"},{"value":2,"unit":"oz"}]',
  'list.volume': '[{"value":1,"unit":"us_gal"}]',
  'list.dimension': '[{"value":3,"unit":"ft"}]',
  'list.number_integer': '[1,-2,3]',
  'list.number_decimal': '["1.5",2.25,"-3"]',
  'list.url': '["https://a.example","mailto:a@b.example"]',
  'list.link': '[{"text":"A","url":"https://a.example"}]',
  'list.file_reference': '["gid://platform/Video/1","gid://platform/GenericFile/2"]',
  'list.rating': '[{"value":"1","scale_min":"0","scale_max":"10"}]',
  'list.metaobject_reference': '["gid://platform/Metaobject/1","gid://platform/Metaobject/2"]',
};

// A near miss of each type: the basic check must refuse it.
const INVALID: Readonly<Record<string, [string, string]>> = {
  single_line_text_field: ['a\nb', 'value: must be a single line (no line breaks)'],
  multi_line_text_field: ['x'.repeat(65537), 'value: is too long (maximum is 65536 bytes)'],
  boolean: ['True', 'value: must be true or false'],
  date: ['2026-02-29', 'value: is not a valid calendar date'],
  date_time: ['2026-11-22 12:05:01Z', 'value: must be an ISO 8601 date and time (YYYY-MM-DDThh:mm[:ss[.fraction]][Z|+hh:mm|-hh:mm])'],
  weight: ['{"value":1,"unit":"stone"}', 'value.unit: must be one of g, kg, lb, oz'],
  volume: [
    '{"value":1,"unit":"kg"}',
    'value.unit: must be one of ml, cl, l, m3, us_fl_oz, us_pt, us_qt, us_gal, imp_fl_oz, imp_pt, imp_qt, imp_gal',
  ],
  dimension: ['{"value":1,"unit":"km"}', 'value.unit: must be one of mm, cm, m, in, ft, yd'],
  number_integer: ['1.0', 'value: must be an integer (digits with an optional leading -, no leading zeros)'],
  number_decimal: ['1.1234567890', 'value: must have at most 9 digits after the decimal point'],
  url: ['ftp://example.com', 'value: must be an absolute URL with scheme http, https, mailto, sms or tel'],
  link: ['{"text":"a"}', 'value: must be a JSON object with keys text and url (strings)'],
  file_reference: [
    'gid://platform/Product/1',
    'value: must be a file global id (gid://platform/MediaImage/<id>, gid://platform/Video/<id> or gid://platform/GenericFile/<id>)',
  ],
  rating: ['{"value":"6","scale_min":"1","scale_max":"5"}', 'value: has a maximum of 5 (rule scale_max)'],
  json: ['{"a":1', 'value: is not valid JSON'],
  metaobject_reference: ['gid://platform/Metaobject/abc', 'value: must be a metaobject global id (gid://platform/Metaobject/<id>)'],
  'list.single_line_text_field': ['["a\\nb"]', 'value[0]: must be a single line (no line breaks)'],
  'list.date': ['["2026-01-01","2026-13-01"]', 'value[1]: is not a valid calendar date'],
  'list.date_time': ['["yesterday"]', 'value[0]: must be an ISO 8601 date and time (YYYY-MM-DDThh:mm[:ss[.fraction]][Z|+hh:mm|-hh:mm])'],
  'list.weight': ['[{"value":1,"unit":"ml"}]', 'value[0].unit: must be one of g, kg, lb, oz'],
  'list.volume': [
    '["1 l"]',
    'value[0]: must be a JSON object with keys value (a number) and unit (ml, cl, l, m3, us_fl_oz, us_pt, us_qt, us_gal, imp_fl_oz, imp_pt, imp_qt, imp_gal)',
  ],
  'list.dimension': [
    '[{"value":1,"unit":"cm","x":1}]',
    'value[0]: must be a JSON object with keys value (a number) and unit (mm, cm, m, in, ft, yd)',
  ],
  'list.number_integer': ['[1,"2"]', 'value[1]: must be a JSON number'],
  'list.number_decimal': ['[true]', 'value[0]: must be a JSON string or number'],
  'list.url': ['["https://a.example", 1]', 'value[1]: must be a JSON string'],
  'list.link': ['[{"text":"A","url":"a.example"}]', 'value[0].url: must be an absolute URL with scheme http, https, mailto, sms or tel'],
  'list.file_reference': [
    '["gid://platform/MediaImage/0"]',
    'value[0]: must be a file global id (gid://platform/MediaImage/<id>, gid://platform/Video/<id> or gid://platform/GenericFile/<id>)',
  ],
  'list.rating': ['[{"value":"11","scale_min":"0","scale_max":"10"}]', 'value[0]: has a maximum of 10 (rule scale_max)'],
  'list.metaobject_reference': ['"gid://platform/Metaobject/1"', 'value: must be a JSON array'],
};

describe('parseValue: the basic check of every type (decisions §8.8)', () => {
  it('has an example of every type', () => {
    expect(Object.keys(VALID).sort()).toEqual([...SCALAR_TYPES, ...LIST_TYPES].sort());
    expect(Object.keys(INVALID).sort()).toEqual([...SCALAR_TYPES, ...LIST_TYPES].sort());
  });

  for (const [type, raw] of Object.entries(VALID)) {
    it(`accepts a valid ${type}`, () => {
      expect(problems(type, raw)).toEqual([]);
    });
  }

  for (const [type, [raw, message]] of Object.entries(INVALID)) {
    it(`refuses an invalid ${type}`, () => {
      expect(problems(type, raw)).toEqual([message]);
    });
  }

  it('refuses an unsupported type', () => {
    expect(problems('list.boolean', '[true]')).toEqual(["type: 'list.boolean' is not a supported type"]);
    expect(problems('string', 'x')).toEqual(["type: 'string' is not a supported type"]);
  });

  it('refuses a non-string value', () => {
    expect(problems('boolean', true as unknown as string)).toEqual(['value: must be a string']);
  });
});

describe('parsed values keep the text as written', () => {
  it('text values are not trimmed or rewritten', () => {
    expect(value('single_line_text_field', '  spaced  ')).toEqual({ kind: 'text', text: '  spaced  ' });
    expect(value('multi_line_text_field', 'a\r\nb')).toEqual({ kind: 'text', text: 'a\r\nb' });
  });
  it('booleans are exactly true or false', () => {
    expect(value('boolean', 'false')).toEqual({ kind: 'boolean', value: false });
    for (const bad of ['TRUE', '1', '0', 'yes', ' true', ''])
      expect(problems('boolean', bad), bad).toEqual(['value: must be true or false']);
  });
  it('json is any JSON text without a key given twice in one object', () => {
    for (const raw of ['1', '"x"', 'null', '[]', ' {"a":1} ', 'true', '[{"a":1},{"a":2}]']) expect(problems('json', raw), raw).toEqual([]);
    expect(problems('json', '{"n":9,"n":1}')).toEqual(['value: is not valid JSON (duplicate key "n")']);
    expect(problems('json', '{"a":{"b":1,"\\u0062":2}}')).toEqual(['value: is not valid JSON (duplicate key "b")']);
    expect(value('json', '[1]')).toEqual({ kind: 'json', text: '[1]', value: [1] });
  });
  it("empty text is a text value to the basic check (the version rule is the validator's)", () => {
    expect(value('single_line_text_field', '')).toEqual({ kind: 'text', text: '' });
    expect(problems('number_integer', '')).toEqual(['value: must be an integer (digits with an optional leading -, no leading zeros)']);
  });
});

describe('sizes (decisions §8.8)', () => {
  it('a value is at most 64 KB', () => {
    expect(problems('multi_line_text_field', 'x'.repeat(65536))).toEqual([]);
    expect(problems('multi_line_text_field', 'é'.repeat(32768))).toEqual([]);
    expect(problems('multi_line_text_field', 'é'.repeat(32769))).toEqual(['value: is too long (maximum is 65536 bytes)']);
    const list = JSON.stringify(Array.from({ length: 128 }, () => 'x'.repeat(520)));
    expect(list.length).toBeGreaterThan(65536);
    expect(problems('list.single_line_text_field', list)).toEqual(['value: is too long (maximum is 65536 bytes)']);
  });
  it('json is at most 128 KB', () => {
    const ok = JSON.stringify('x'.repeat(131070));
    expect(ok.length).toBe(131072);
    expect(problems('json', ok)).toEqual([]);
    expect(problems('json', JSON.stringify('x'.repeat(131071)))).toEqual(['value: is too long (maximum is 131072 bytes)']);
  });
  it('url is at most 2 KB, in lists too', () => {
    const long = `https://example.com/${'a'.repeat(2029)}`;
    expect(long.length).toBe(2049);
    expect(problems('url', long)).toEqual(['value: is too long (maximum is 2048 bytes)']);
    expect(problems('url', long.slice(0, 2048))).toEqual([]);
    expect(problems('list.url', JSON.stringify([long]))).toEqual(['value[0]: is too long (maximum is 2048 bytes)']);
    expect(problems('link', JSON.stringify({ text: 'x', url: long }))).toEqual(['value.url: is too long (maximum is 2048 bytes)']);
  });
});

describe('lists (decisions §8.8)', () => {
  it('hold at most 128 elements', () => {
    expect(problems('list.number_integer', JSON.stringify(Array.from({ length: 128 }, (_, i) => i)))).toEqual([]);
    expect(problems('list.number_integer', JSON.stringify(Array.from({ length: 129 }, (_, i) => i)))).toEqual([
      'value: has too many elements (maximum is 128)',
    ]);
  });

  it('encode integers as JSON numbers, never strings, exponents or fractions', () => {
    expect(value('list.number_integer', '[1, -2]')).toEqual({
      kind: 'list',
      elements: [
        { kind: 'integer', value: 1 },
        { kind: 'integer', value: -2 },
      ],
    });
    expect(problems('list.number_integer', '[1e2]')).toEqual([
      'value[0]: must be an integer (digits with an optional leading -, no leading zeros)',
    ]);
    expect(problems('list.number_integer', '[1.0]')).toEqual([
      'value[0]: must be an integer (digits with an optional leading -, no leading zeros)',
    ]);
    expect(problems('list.number_integer', '[9007199254740992]')).toEqual([
      'value[0]: must be between -9007199254740991 and 9007199254740991',
    ]);
  });

  it('encode decimals as JSON strings, numbers accepted too, judged as written', () => {
    expect(value('list.number_decimal', '["1.50", 1.50]')).toMatchObject({
      elements: [
        { text: '1.50', fractionDigits: 2 },
        { text: '1.50', fractionDigits: 2 },
      ],
    });
    expect(problems('list.number_decimal', '[1.0000000001]')).toEqual(['value[0]: must have at most 9 digits after the decimal point']);
    expect(problems('list.number_decimal', '[1e-3]')).toEqual([
      'value[0]: must be a decimal number (digits, an optional leading - and an optional fraction, no leading zeros)',
    ]);
  });

  it('encode the rest as JSON strings', () => {
    expect(problems('list.date', '[20260101]')).toEqual(['value[0]: must be a JSON string']);
    expect(problems('list.single_line_text_field', '[["a"]]')).toEqual(['value[0]: must be a JSON string']);
    expect(problems('list.file_reference', '[{"gid":"gid://platform/Video/1"}]')).toEqual(['value[0]: must be a JSON string']);
  });

  it('allow empty elements, kept as null (decisions §2.6)', () => {
    expect(value('list.single_line_text_field', '["a",""]')).toEqual({ kind: 'list', elements: [{ kind: 'text', text: 'a' }, null] });
    expect(value('list.date', '[""]')).toEqual({ kind: 'list', elements: [null] });
    expect(value('list.weight', '["", {"value":1,"unit":"g"}]')).toMatchObject({ elements: [null, { kind: 'measure' }] });
    expect(value('list.number_integer', '[""]')).toEqual({ kind: 'list', elements: [null] });
  });

  it('may be empty arrays', () => {
    expect(value('list.url', '[]')).toEqual({ kind: 'list', elements: [] });
  });

  it('report every bad element by index', () => {
    expect(problems('list.date', '["x","2026-01-01","2026-02-30"]')).toEqual([
      'value[0]: must be a date in the format YYYY-MM-DD',
      'value[2]: is not a valid calendar date',
    ]);
  });

  it('refuse what is not a strict JSON array', () => {
    expect(problems('list.url', '{"a":1}')).toEqual(['value: must be a JSON array']);
    expect(problems('list.url', '["a",]')).toEqual(['value: must be a JSON array']);
    expect(problems('list.weight', '[{"value":1,"value":2,"unit":"g"}]')).toEqual(['value: is not valid JSON (duplicate key "value")']);
    expect(problems('list.link', '[[[[1]]]]')).toEqual(['value: is nested too deeply']);
  });
});

describe('structured scalar values are strict JSON', () => {
  it('refuse duplicate keys that JSON.parse would drop', () => {
    expect(problems('weight', '{"value":1,"unit":"kg","unit":"g"}')).toEqual(['value: is not valid JSON (duplicate key "unit")']);
    expect(problems('rating', 'not json')).toEqual(['value: is not valid JSON']);
  });
  it('keep the measure value exactly as written', () => {
    expect(value('weight', '{"value":1.000000001,"unit":"kg"}')).toMatchObject({ valueText: '1.000000001' });
  });
});
