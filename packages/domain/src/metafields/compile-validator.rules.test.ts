import { describe, expect, it } from 'vitest';
import { compileValidator } from './compile-validator';

// Each rule on written values (spec rules table "Check on a written value", decisions §8.13), one
// passing and one failing case apiece, with the message the API returns.
const ctx = { version: 'v20260901' };

function messages(type: string, validations: [string, string][], raw: string): string[] {
  const validate = compileValidator({ type, validations: validations.map(([name, value]) => ({ name, value })) });
  const result = validate(raw, ctx);
  return result.ok ? [] : result.issues.map((i) => i.message);
}

describe('choices', () => {
  it('the value must be one of the options, exactly', () => {
    const rule: [string, string][] = [['choices', '["red","green"]']];
    expect(messages('single_line_text_field', rule, 'red')).toEqual([]);
    expect(messages('single_line_text_field', rule, 'Red')).toEqual(['value: does not exist in provided choices (rule choices)']);
    expect(messages('list.single_line_text_field', rule, '["red","blue"]')).toEqual([
      'value[1]: does not exist in provided choices (rule choices)',
    ]);
  });
});

describe('allowed_domains', () => {
  const rule: [string, string][] = [['allowed_domains', '["https://shop.example.com","http://example.org:8080"]']];
  it('compares origins exactly: scheme, host and port, default ports dropped', () => {
    expect(messages('url', rule, 'https://shop.example.com/a/b?c')).toEqual([]);
    expect(messages('url', rule, 'https://SHOP.example.com:443/')).toEqual([]);
    expect(messages('url', rule, 'http://example.org:8080/x')).toEqual([]);
    const refused = ['value: is not from an allowed domain (rule allowed_domains)'];
    expect(messages('url', rule, 'http://shop.example.com/')).toEqual(refused);
    expect(messages('url', rule, 'https://example.com/')).toEqual(refused);
    expect(messages('url', rule, 'https://evil.shop.example.com/')).toEqual(refused);
    expect(messages('url', rule, 'https://shop.example.com.evil.test/')).toEqual(refused);
    expect(messages('url', rule, 'https://shop.example.com:8443/')).toEqual(refused);
    expect(messages('url', rule, 'http://example.org/')).toEqual(refused);
    expect(messages('url', rule, 'https://shop.example.com@evil.test/')).toEqual(refused);
    expect(messages('url', rule, 'mailto:a@shop.example.com')).toEqual(refused);
  });
  it('an empty array is no restriction, like file_type_options []', () => {
    for (const [type, value] of [
      ['url', 'https://any.example/x'],
      ['link', '{"text":"x","url":"http://other.test"}'],
      ['list.url', '["mailto:a@b.example"]'],
    ] as const) {
      expect(messages(type, [['allowed_domains', '[]']], value), type).toEqual([]);
    }
  });
  it('checks the url field of links', () => {
    expect(messages('link', rule, '{"text":"x","url":"https://shop.example.com"}')).toEqual([]);
    expect(messages('link', rule, '{"text":"x","url":"https://other.example"}')).toEqual([
      'value.url: is not from an allowed domain (rule allowed_domains)',
    ]);
    expect(messages('list.link', rule, '[{"text":"a","url":"https://shop.example.com"},{"text":"b","url":"https://x.example"}]')).toEqual([
      'value[1].url: is not from an allowed domain (rule allowed_domains)',
    ]);
    expect(messages('list.url', rule, '["https://x.example","https://shop.example.com"]')).toEqual([
      'value[0]: is not from an allowed domain (rule allowed_domains)',
    ]);
  });
});

describe('file_type_options', () => {
  it('reads the kind from the gid: MediaImage is Image, Video is Video, GenericFile neither (§8.14)', () => {
    const images: [string, string][] = [['file_type_options', '["Image"]']];
    expect(messages('file_reference', images, 'gid://platform/MediaImage/1')).toEqual([]);
    expect(messages('file_reference', images, 'gid://platform/Video/1')).toEqual([
      'value: must be a file of type Image (rule file_type_options)',
    ]);
    expect(messages('file_reference', images, 'gid://platform/GenericFile/1')).toEqual([
      'value: must be a file of type Image (rule file_type_options)',
    ]);
    const both: [string, string][] = [['file_type_options', '["Image","Video"]']];
    expect(messages('list.file_reference', both, '["gid://platform/Video/1","gid://platform/GenericFile/2"]')).toEqual([
      'value[1]: must be a file of type Image or Video (rule file_type_options)',
    ]);
  });
  it('an empty array means no restriction', () => {
    expect(messages('file_reference', [['file_type_options', '[]']], 'gid://platform/GenericFile/1')).toEqual([]);
  });
});

describe('list.min and list.max', () => {
  it('bound the element count, inclusive, empty elements counted', () => {
    const rule: [string, string][] = [
      ['list.min', '2'],
      ['list.max', '3'],
    ];
    expect(messages('list.number_integer', rule, '[1,2]')).toEqual([]);
    expect(messages('list.number_integer', rule, '[1,2,3]')).toEqual([]);
    expect(messages('list.date', rule, '["2026-01-01",""]')).toEqual([]);
    expect(messages('list.number_integer', rule, '[1]')).toEqual(['value: has a minimum of 2 elements (rule list.min)']);
    expect(messages('list.number_integer', rule, '[1,2,3,4]')).toEqual(['value: has a maximum of 3 elements (rule list.max)']);
    expect(messages('list.number_integer', [['list.min', '1']], '[]')).toEqual(['value: has a minimum of 1 elements (rule list.min)']);
  });
});

describe('min and max', () => {
  it('text: a length in code points', () => {
    expect(messages('single_line_text_field', [['max', '10']], 'abcdefghij')).toEqual([]);
    expect(messages('single_line_text_field', [['max', '10']], 'abcdefghijk')).toEqual(['value: has a maximum length of 10 (rule max)']);
    expect(messages('multi_line_text_field', [['min', '2']], '😀')).toEqual(['value: has a minimum length of 2 (rule min)']);
    expect(messages('list.single_line_text_field', [['min', '2']], '["ab","a"]')).toEqual([
      'value[1]: has a minimum length of 2 (rule min)',
    ]);
  });
  it('numbers: by value', () => {
    expect(messages('number_integer', [['max', '5']], '5')).toEqual([]);
    expect(messages('number_integer', [['max', '5']], '6')).toEqual(['value: has a maximum of 5 (rule max)']);
    expect(messages('list.number_integer', [['min', '1']], '[1,0]')).toEqual(['value[1]: has a minimum of 1 (rule min)']);
    expect(messages('number_decimal', [['min', '-2.5']], '-2.6')).toEqual(['value: has a minimum of -2.5 (rule min)']);
    expect(messages('list.number_decimal', [['max', '1']], '["1.0", 1.000000001]')).toEqual(['value[1]: has a maximum of 1 (rule max)']);
  });
  it('dates and date-times', () => {
    expect(messages('date', [['max', '2026-12-31']], '2027-01-01')).toEqual(['value: has a maximum of 2026-12-31 (rule max)']);
    expect(messages('list.date', [['min', '2026-01-01']], '["2026-01-01","2025-12-31"]')).toEqual([
      'value[1]: has a minimum of 2026-01-01 (rule min)',
    ]);
    expect(messages('date_time', [['min', '2026-01-01T00:00:00Z']], '2026-01-01T08:00:00+08:00')).toEqual([]);
    expect(messages('list.date_time', [['min', '2026-01-01T00:00:00Z']], '["2026-01-01T07:59:59+08:00"]')).toEqual([
      'value[0]: has a minimum of 2026-01-01T00:00:00Z (rule min)',
    ]);
  });
  it('measures: across units', () => {
    const rule: [string, string][] = [['max', '{"unit":"kg","value":1}']];
    expect(messages('weight', rule, '{"value":1000,"unit":"g"}')).toEqual([]);
    expect(messages('weight', rule, '{"value":2.3,"unit":"lb"}')).toEqual(['value: has a maximum of 1 kg (rule max)']);
    expect(
      messages('list.volume', [['min', '{"unit":"ml","value":29}']], '[{"value":1,"unit":"us_fl_oz"},{"value":1,"unit":"imp_fl_oz"}]'),
    ).toEqual(['value[1]: has a minimum of 29 ml (rule min)']);
    expect(
      messages('list.dimension', [['max', '{"unit":"in","value":12}']], '[{"value":1,"unit":"ft"},{"value":30.49,"unit":"cm"}]'),
    ).toEqual(['value[1]: has a maximum of 12 in (rule max)']);
  });
});

describe('max_precision', () => {
  it('rejects more decimal places, never rounds', () => {
    expect(messages('number_decimal', [['max_precision', '2']], '1.25')).toEqual([]);
    expect(messages('number_decimal', [['max_precision', '2']], '1.250')).toEqual([
      'value: has a maximum precision of 2 (rule max_precision)',
    ]);
    expect(messages('number_decimal', [['max_precision', '0']], '3')).toEqual([]);
    expect(messages('number_decimal', [['max_precision', '0']], '3.0')).toEqual([
      'value: has a maximum precision of 0 (rule max_precision)',
    ]);
    expect(messages('list.number_decimal', [['max_precision', '1']], '["1.5", 2.25]')).toEqual([
      'value[1]: has a maximum precision of 1 (rule max_precision)',
    ]);
  });
});

describe('regex', () => {
  it('searches the value; authors anchor to match all of it', () => {
    expect(messages('single_line_text_field', [['regex', '[0-9]']], 'abc1')).toEqual([]);
    expect(messages('single_line_text_field', [['regex', '^[0-9]+$']], 'abc1')).toEqual([
      'value: does not match the regular expression (rule regex)',
    ]);
    expect(messages('multi_line_text_field', [['regex', '^a$']], 'a\nb')).toEqual([
      'value: does not match the regular expression (rule regex)',
    ]);
    expect(messages('list.single_line_text_field', [['regex', '^x']], '["xa","ax"]')).toEqual([
      'value[1]: does not match the regular expression (rule regex)',
    ]);
  });
  it('judges the choices as it judges any value (their verdicts are taken at compile time)', () => {
    const rules: [string, string][] = [
      ['regex', '^[a-z]+$'],
      ['choices', '["abc","ABC"]'],
    ];
    expect(messages('single_line_text_field', rules, 'abc')).toEqual([]);
    expect(messages('single_line_text_field', rules, 'ABC')).toEqual(['value: does not match the regular expression (rule regex)']);
    expect(messages('single_line_text_field', rules, 'xyz')).toEqual(['value: does not exist in provided choices (rule choices)']);
    expect(messages('list.single_line_text_field', rules, '["abc","ABC","Q"]')).toEqual([
      'value[1]: does not match the regular expression (rule regex)',
      'value[2]: does not match the regular expression (rule regex)',
      'value[2]: does not exist in provided choices (rule choices)',
    ]);
  });
  it('runs (a+)+$ on 50,000 a and a b without backtracking', () => {
    expect(messages('single_line_text_field', [['regex', '(a+)+$']], `${'a'.repeat(50_000)}b`)).toEqual([
      'value: does not match the regular expression (rule regex)',
    ]);
  });
});

describe('scale_min and scale_max', () => {
  const rule: [string, string][] = [
    ['scale_min', '1'],
    ['scale_max', '5'],
  ];
  it("the rating's scale must equal the definition's (§8.8)", () => {
    expect(messages('rating', rule, '{"value":"4.5","scale_min":"1","scale_max":"5"}')).toEqual([]);
    expect(messages('rating', rule, '{"value":"4.5","scale_min":"1.0","scale_max":"5.00"}')).toEqual([]);
    expect(messages('rating', rule, '{"value":"4","scale_min":"0","scale_max":"5"}')).toEqual([
      "value: must have scale_min 1, the definition's scale (rule scale_min)",
    ]);
    expect(messages('rating', rule, '{"value":"4","scale_min":"1","scale_max":"10"}')).toEqual([
      "value: must have scale_max 5, the definition's scale (rule scale_max)",
    ]);
  });
  it('the value must lie within scale_min..scale_max, inclusive', () => {
    expect(messages('rating', rule, '{"value":"1","scale_min":"1","scale_max":"5"}')).toEqual([]);
    expect(messages('rating', rule, '{"value":"5","scale_min":"1","scale_max":"5"}')).toEqual([]);
    expect(messages('rating', rule, '{"value":"0.5","scale_min":"0","scale_max":"5"}')).toEqual([
      'value: has a minimum of 1 (rule scale_min)',
    ]);
    expect(messages('list.rating', rule, '[{"value":"6","scale_min":"1","scale_max":"6"}]')).toEqual([
      'value[0]: has a maximum of 5 (rule scale_max)',
    ]);
  });
  it('without scale rules a rating only needs its value within its own scale (§8.8)', () => {
    expect(messages('rating', [], '{"value":"70","scale_min":"0","scale_max":"100"}')).toEqual([]);
  });
});

describe('schema', () => {
  it('the value must conform to the schema', () => {
    const rule: [string, string][] = [['schema', '{"type":"object","properties":{"size":{"enum":["S","M"]}},"required":["size"]}']];
    expect(messages('json', rule, '{"size":"S"}')).toEqual([]);
    expect(messages('json', rule, '{"size":"XL"}')).toEqual([
      'value: does not conform to the schema: /size must be equal to one of the allowed values (rule schema)',
    ]);
    expect(messages('json', rule, '[]')).toEqual(['value: does not conform to the schema: must be object (rule schema)']);
  });

  it('a value with keys named like what objects inherit is judged, not thrown on (it was a TypeError: a 500)', () => {
    const rule: [string, string][] = [['schema', '{"enum":[{"size":"S"}],"required":["toString"]}']];
    expect(messages('json', rule, '{"valueOf":1,"toString":2}')).toEqual([
      'value: does not conform to the schema: must be equal to one of the allowed values (rule schema)',
    ]);
    expect(messages('json', [['schema', '{"const":{"toString":"x"}}']], '{"toString":"x"}')).toEqual([]);
    expect(messages('json', [['schema', '{"required":["toString"]}']], '{}')).toEqual([
      "value: does not conform to the schema: must have required property 'toString' (rule schema)",
    ]);
  });
});

describe('metaobject_definition_id', () => {
  it('is checked against the store by the caller (see compile-validator.test)', () => {
    const validate = compileValidator({ type: 'metaobject_reference', validations: [{ name: 'metaobject_definition_id', value: '7' }] });
    const result = validate('gid://platform/Metaobject/3', ctx);
    expect(result).toMatchObject({ ok: true, references: [{ field: 'value', id: '3', definitionId: '7' }] });
  });
});

describe('several rules', () => {
  it('all run, each reported', () => {
    expect(
      messages(
        'single_line_text_field',
        [
          ['max', '3'],
          ['regex', '^[a-z]+$'],
          ['choices', '["abc"]'],
        ],
        'ABCD',
      ),
    ).toEqual([
      'value: has a maximum length of 3 (rule max)',
      'value: does not match the regular expression (rule regex)',
      'value: does not exist in provided choices (rule choices)',
    ]);
  });
});
