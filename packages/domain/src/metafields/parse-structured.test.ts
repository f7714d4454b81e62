import { describe, expect, it } from 'vitest';
import type { Issue } from './format-issues';
import { parseStrictJson, type JsonNode } from './parse-json';
import { parseLinkNode, parseMeasureNode, parseRatingNode } from './parse-structured';

function node(text: string): JsonNode {
  const result = parseStrictJson(text, 3);
  if (!result.ok) throw new Error(text);
  return result.value;
}

function messages(run: (issues: Issue[]) => unknown): { value: unknown; messages: string[] } {
  const issues: Issue[] = [];
  const value = run(issues);
  return { value, messages: issues.map((i) => i.message) };
}

describe('weight, volume, dimension (decisions §8.8, §8.10)', () => {
  it('read {"value": n, "unit": u} with the units of the dimension', () => {
    const { value, messages: m } = messages((i) => parseMeasureNode(node('{"value":1.5,"unit":"kg"}'), 'weight', 'value', i));
    expect(m).toEqual([]);
    expect(value).toMatchObject({ kind: 'measure', dimension: 'weight', valueText: '1.5', unit: 'kg' });
    expect((value as { value: { toString(): string } }).value.toString()).toBe('1.5');
    expect(JSON.parse(JSON.stringify(value))).toEqual({ kind: 'measure', dimension: 'weight', valueText: '1.5', value: '1.5', unit: 'kg' });
    expect(messages((i) => parseMeasureNode(node('{"unit":"us_fl_oz","value":-2}'), 'volume', 'value', i)).messages).toEqual([]);
    expect(messages((i) => parseMeasureNode(node('{"value":0,"unit":"yd"}'), 'dimension', 'value', i)).messages).toEqual([]);
  });

  it('refuse a unit of another dimension, a string value, or extra keys', () => {
    expect(messages((i) => parseMeasureNode(node('{"value":1,"unit":"ml"}'), 'weight', 'value', i)).messages).toEqual([
      'value.unit: must be one of g, kg, lb, oz',
    ]);
    expect(messages((i) => parseMeasureNode(node('{"value":"1","unit":"kg"}'), 'weight', 'value', i)).messages).toEqual([
      'value.value: must be a JSON number',
    ]);
    expect(messages((i) => parseMeasureNode(node('{"value":1e3,"unit":"kg"}'), 'weight', 'value[2]', i)).messages).toEqual([
      'value[2].value: must be a decimal number (digits, an optional leading - and an optional fraction, no leading zeros)',
    ]);
    expect(messages((i) => parseMeasureNode(node('{"value":1,"unit":"kg","note":1}'), 'weight', 'value', i)).messages).toEqual([
      'value: must be a JSON object with keys value (a number) and unit (g, kg, lb, oz)',
    ]);
    expect(messages((i) => parseMeasureNode(node('[1,"kg"]'), 'weight', 'value', i)).value).toBeUndefined();
    expect(messages((i) => parseMeasureNode(node('{"value":1}'), 'weight', 'value', i)).value).toBeUndefined();
  });
});

describe('rating (decisions §8.8)', () => {
  it('reads value, scale_min and scale_max as decimal strings', () => {
    const { value, messages: m } = messages((i) => parseRatingNode(node('{"value":"4.5","scale_min":"1","scale_max":"5"}'), 'value', i));
    expect(m).toEqual([]);
    expect(value).toMatchObject({ kind: 'rating' });
  });

  it('accepts values at the ends of its own scale', () => {
    expect(messages((i) => parseRatingNode(node('{"value":"1","scale_min":"1","scale_max":"5"}'), 'value', i)).messages).toEqual([]);
    expect(messages((i) => parseRatingNode(node('{"value":"5.0","scale_min":"1","scale_max":"5"}'), 'value', i)).messages).toEqual([]);
  });

  it('refuses a value outside its own scale', () => {
    expect(messages((i) => parseRatingNode(node('{"value":"5.5","scale_min":"1","scale_max":"5"}'), 'value', i)).messages).toEqual([
      'value: has a maximum of 5 (rule scale_max)',
    ]);
    expect(messages((i) => parseRatingNode(node('{"value":"0.9","scale_min":"1","scale_max":"5"}'), 'value', i)).messages).toEqual([
      'value: has a minimum of 1 (rule scale_min)',
    ]);
    expect(messages((i) => parseRatingNode(node('{"value":"3","scale_min":"5","scale_max":"1"}'), 'value', i)).messages).toEqual([
      'value.scale_min: must be less than or equal to scale_max',
    ]);
  });

  it('refuses numbers, missing or extra keys', () => {
    expect(messages((i) => parseRatingNode(node('{"value":4,"scale_min":"1","scale_max":"5"}'), 'value', i)).messages).toEqual([
      'value.value: must be a decimal string',
    ]);
    expect(messages((i) => parseRatingNode(node('{"value":"4","scale_min":"1"}'), 'value', i)).messages).toEqual([
      'value: must be a JSON object with keys value, scale_min and scale_max (decimal strings)',
    ]);
    expect(messages((i) => parseRatingNode(node('{"value":"x","scale_min":"1","scale_max":"5"}'), 'value', i)).value).toBeUndefined();
  });
});

describe('link (decisions §8.8)', () => {
  it('reads {"text", "url"}', () => {
    const { value, messages: m } = messages((i) => parseLinkNode(node('{"text":"Shop","url":"https://example.com"}'), 'value', i));
    expect(m).toEqual([]);
    expect(value).toMatchObject({ kind: 'link', text: 'Shop', url: { origin: 'https://example.com' } });
  });

  it('checks the url as a url value', () => {
    expect(messages((i) => parseLinkNode(node('{"text":"x","url":"example.com"}'), 'value', i)).messages).toEqual([
      'value.url: must be an absolute URL with scheme http, https, mailto, sms or tel',
    ]);
    expect(messages((i) => parseLinkNode(node('{"text":1,"url":2}'), 'value', i)).messages).toEqual([
      'value.text: must be a string',
      'value.url: must be a string',
    ]);
    expect(messages((i) => parseLinkNode(node('{"url":"https://example.com"}'), 'value', i)).messages).toEqual([
      'value: must be a JSON object with keys text and url (strings)',
    ]);
  });
});
