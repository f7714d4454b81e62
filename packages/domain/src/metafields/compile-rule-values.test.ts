import { describe, expect, it } from 'vitest';
import { checkRuleSet } from './compile-rule-set';
import type { MetafieldType } from './define-types';
import type { Issue } from './format-issues';

// Each rule's value format and limits (spec rules table and Limits), as definition-time problems.
function problem(type: MetafieldType, name: string, value: string): string | null {
  const issues: Issue[] = [];
  checkRuleSet(type, [{ name, value }], issues);
  return issues[0]?.message ?? null;
}

const list = (n: number, make: (i: number) => string) => JSON.stringify(Array.from({ length: n }, (_, i) => make(i)));

describe('choices', () => {
  const t = 'single_line_text_field';
  it('is a non-empty JSON array of at most 128 distinct single-line strings', () => {
    expect(problem(t, 'choices', '["red","green"]')).toBeNull();
    expect(
      problem(
        'list.single_line_text_field',
        'choices',
        list(128, (i) => `c${i}`),
      ),
    ).toBeNull();
    expect(
      problem(
        t,
        'choices',
        list(129, (i) => `c${i}`),
      ),
    ).toBe('validations[0].value: has too many choices (maximum is 128) (rule choices)');
    expect(problem(t, 'choices', '[]')).toBe('validations[0].value: must contain at least one choice (rule choices)');
    expect(problem(t, 'choices', '["a","b","a"]')).toBe('validations[0].value: has a duplicate choice "a" (rule choices)');
    expect(problem(t, 'choices', '["a\\nb"]')).toBe('validations[0].value: must not contain line breaks (rule choices)');
    expect(problem(t, 'choices', '["a\\rb"]')).toBe('validations[0].value: must not contain line breaks (rule choices)');
    expect(problem(t, 'choices', '[""]')).toBe('validations[0].value: must not contain an empty choice (rule choices)');
    for (const bad of ['red', '"red"', '[1]', '{"a":"b"}', '["a",]']) {
      expect(problem(t, 'choices', bad), bad).toBe('validations[0].value: must be a JSON array of strings (rule choices)');
    }
  });
});

describe('allowed_domains', () => {
  it('is a JSON array of at most 100 complete http(s) URLs', () => {
    expect(problem('url', 'allowed_domains', '["https://example.com","http://shop.example.com:8080/path"]')).toBeNull();
    expect(
      problem(
        'list.link',
        'allowed_domains',
        list(100, (i) => `https://d${i}.example`),
      ),
    ).toBeNull();
    expect(
      problem(
        'url',
        'allowed_domains',
        list(101, (i) => `https://d${i}.example`),
      ),
    ).toBe('validations[0].value: has too many entries (maximum is 100) (rule allowed_domains)');
    // Only choices must be non-empty (spec rules table): [] is no restriction.
    expect(problem('url', 'allowed_domains', '[]')).toBeNull();
    expect(problem('url', 'allowed_domains', 'https://example.com')).toBe(
      'validations[0].value: must be a JSON array of strings (rule allowed_domains)',
    );
  });
  it('refuses bare domain names and URLs without an http(s) protocol', () => {
    for (const bad of [
      'example.com',
      'www.example.com',
      '//example.com',
      'ftp://example.com',
      'mailto:a@example.com',
      'https://',
      'example.com:443',
    ]) {
      expect(problem('link', 'allowed_domains', JSON.stringify([bad])), bad).toBe(
        `validations[0].value: ${JSON.stringify(bad)} is not a complete URL with protocol http or https (bare domain names are not supported) (rule allowed_domains)`,
      );
    }
  });
});

describe('file_type_options', () => {
  it('is a JSON array of file kinds, Image or Video; empty means no restriction', () => {
    expect(problem('file_reference', 'file_type_options', '["Image","Video"]')).toBeNull();
    expect(problem('file_reference', 'file_type_options', '[]')).toBeNull();
    expect(problem('file_reference', 'file_type_options', '["Audio"]')).toBe(
      'validations[0].value: "Audio" is not a file type (use Image or Video) (rule file_type_options)',
    );
    expect(problem('file_reference', 'file_type_options', '["image"]')).toBe(
      'validations[0].value: "image" is not a file type (use Image or Video) (rule file_type_options)',
    );
    expect(problem('file_reference', 'file_type_options', 'Image')).toBe(
      'validations[0].value: must be a JSON array of strings (rule file_type_options)',
    );
  });
});

describe('list.min and list.max', () => {
  for (const name of ['list.min', 'list.max']) {
    it(`${name} is a non-negative integer string, at most 128`, () => {
      for (const ok of ['0', '1', '128']) expect(problem('list.date', name, ok), ok).toBeNull();
      for (const bad of ['129', '-1', '1.5', '01', 'one', '1e2', ' 1']) {
        expect(problem('list.date', name, bad), bad).toBe(`validations[0].value: must be an integer from 0 to 128 (rule ${name})`);
      }
    });
  }
});

describe('min and max', () => {
  it('take the format of the type (see compile-bounds) and name the rule', () => {
    expect(problem('number_integer', 'min', '-1')).toBe('validations[0].value: must be a non-negative integer (rule min)');
    expect(problem('list.number_integer', 'max', '-1')).toBe('validations[0].value: must be a non-negative integer (rule max)');
    expect(problem('number_decimal', 'min', '-1')).toBeNull();
    expect(problem('list.number_decimal', 'min', '-1.25')).toBeNull();
    expect(problem('weight', 'min', '{"unit":"kg","value":-1}')).toMatch(
      /^validations\[0\]\.value: must be JSON text of an object .*\(rule min\)$/,
    );
    expect(problem('list.single_line_text_field', 'max', '10')).toBeNull();
    expect(problem('multi_line_text_field', 'max', '-10')).toBe(
      'validations[0].value: must be a non-negative integer (a length in characters) (rule max)',
    );
    expect(problem('list.date_time', 'max', 'soon')).toBe(
      'validations[0].value: must be an ISO 8601 date (YYYY-MM-DD) or date and time (rule max)',
    );
  });
});

describe('max_precision', () => {
  it('is an integer from 0 to 9', () => {
    for (const ok of ['0', '2', '9']) expect(problem('number_decimal', 'max_precision', ok)).toBeNull();
    for (const bad of ['10', '-1', '2.0', 'two', '02']) {
      expect(problem('list.number_decimal', 'max_precision', bad), bad).toBe(
        'validations[0].value: must be an integer from 0 to 9 (rule max_precision)',
      );
    }
  });
});

describe('regex', () => {
  it('is a pattern RE2 can compile', () => {
    expect(problem('single_line_text_field', 'regex', '^[A-Z]{3}-\\d+$')).toBeNull();
    expect(problem('multi_line_text_field', 'regex', '(?=x)')).toMatch(
      /^validations\[0\]\.value: is not a valid RE2 regular expression: .*\(rule regex\)$/,
    );
    expect(problem('list.single_line_text_field', 'regex', '(a)\\1')).toMatch(/is not a valid RE2 regular expression/);
    expect(problem('single_line_text_field', 'regex', '[a-')).toMatch(/is not a valid RE2 regular expression/);
  });
});

describe('scale_min and scale_max', () => {
  it('are decimal strings', () => {
    expect(problem('rating', 'scale_min', 'one')).toBe(
      'validations[0].value: must be a decimal number (digits, an optional leading - and an optional fraction, no leading zeros) (rule scale_min)',
    );
    expect(problem('rating', 'scale_max', '1e1')).toMatch(/must be a decimal number .*\(rule scale_max\)$/);
  });
});

describe('schema', () => {
  it('is JSON Schema text, compiled at definition time', () => {
    expect(problem('json', 'schema', '{"type":"object"}')).toBeNull();
    expect(problem('json', 'schema', '{"type":"object"')).toBe('validations[0].value: is not valid JSON (rule schema)');
    expect(problem('json', 'schema', '{"type":"thing"}')).toBe(
      'validations[0].value: is not a valid JSON Schema: /type must be equal to one of the allowed values (rule schema)',
    );
  });
});

describe('metaobject_definition_id', () => {
  it('is a numeric id or gid://platform/MetaobjectDefinition/<id>', () => {
    expect(problem('metaobject_reference', 'metaobject_definition_id', '12')).toBeNull();
    expect(problem('metaobject_reference', 'metaobject_definition_id', 'gid://platform/MetaobjectDefinition/12')).toBeNull();
    for (const bad of ['0', '-1', 'abc', 'gid://platform/Metaobject/12', 'gid://platform/MetaobjectDefinition/', '12.0']) {
      expect(problem('list.metaobject_reference', 'metaobject_definition_id', bad), bad).toBe(
        'validations[0].value: must be a numeric id or a global id gid://platform/MetaobjectDefinition/<id> (rule metaobject_definition_id)',
      );
    }
  });
});
