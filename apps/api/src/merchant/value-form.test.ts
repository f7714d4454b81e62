import { describe, expect, it } from 'vitest';
import { changedValue, controlOf, encodeList, listElements } from './value-form';

describe("the product page's value form (decisions §8.8)", () => {
  it('gives each type a fitting control', () => {
    expect(
      ['single_line_text_field', 'multi_line_text_field', 'number_decimal', 'date', 'boolean', 'weight', 'list.url'].map(controlOf),
    ).toEqual(['text', 'textarea', 'number', 'date', 'boolean', 'json', 'list']);
  });

  it("writes list rows in the API's form: integers as numbers, objects as typed, the rest as strings; empty rows dropped", () => {
    expect(encodeList('list.number_integer', ['1', '', '-20', '3.5'])).toBe('[1,-20,"3.5"]');
    expect(encodeList('list.number_integer', ['90071992547409919'])).toBe('[90071992547409919]');
    expect(encodeList('list.weight', ['{"value": 2, "unit": "kg"}', 'heavy'])).toBe('[{"value":2,"unit":"kg"},"heavy"]');
    expect(encodeList('list.single_line_text_field', ['a "quoted" word', '   '])).toBe('["a \\"quoted\\" word"]');
  });

  it('reads a stored list back into rows, and a stored value that is no list as one row', () => {
    expect(listElements('[1,"b",{"value":2,"unit":"g"}]')).toEqual(['1', 'b', '{"value":2,"unit":"g"}']);
    expect(listElements('not json')).toEqual(['not json']);
  });

  it('writes only what changed: an untouched value, an empty new field and a re-spelled list are no write', () => {
    expect(changedValue({ d1: 'same' }, 'd1', 'single_line_text_field', 'same')).toBeUndefined();
    expect(changedValue({ d1: '' }, 'd1', 'single_line_text_field', undefined)).toBeUndefined();
    expect(changedValue({}, 'd1', 'single_line_text_field', 'kept')).toBeUndefined();
    expect(changedValue({ d1: '' }, 'd1', 'single_line_text_field', 'was')).toBe('');
    expect(changedValue({ 'd2.0': '1', 'd2.1': '2', 'd2.2': '' }, 'd2', 'list.number_integer', '[1, 2]')).toBeUndefined();
    expect(changedValue({ 'd2.0': '1', 'd2.1': '' }, 'd2', 'list.number_integer', '[1, 2]')).toBe('[1]');
    expect(changedValue({ 'd2.0': '', 'd2.1': '' }, 'd2', 'list.number_integer', undefined)).toBeUndefined();
  });
});
