import { describe, expect, it } from 'vitest';
import { checkDefinitionReferences, checkMetaobjectReferences } from './check-references';
import { compileValidator, tryCompileValidator } from './compile-validator';
import type { Issue } from './format-issues';

// The rule data of an issue (Issue.rule): what the merchant pages word a problem from, without
// reading its message. The message itself stays the API's (compile-validator.rules.test.ts).
const ctx = { version: 'v20260901' };

function judged(type: string, validations: [string, string][], raw: string): Issue[] {
  const validate = compileValidator({ type, validations: validations.map(([name, value]) => ({ name, value })) });
  const result = validate(raw, ctx);
  return result.ok ? [] : result.issues;
}

const rulesOf = (issues: Issue[]) => issues.map((i) => ({ field: i.field, rule: i.rule }));

describe('a value that breaks a rule names the rule and its bound', () => {
  it('min and max: the bound as written, for lengths, numbers, dates and measures', () => {
    expect(rulesOf(judged('single_line_text_field', [['min', '3']], 'ab'))).toEqual([
      { field: 'value', rule: { name: 'min', kind: 'broken', bound: '3' } },
    ]);
    expect(rulesOf(judged('number_decimal', [['max', '-1.5']], '2'))).toEqual([
      { field: 'value', rule: { name: 'max', kind: 'broken', bound: '-1.5' } },
    ]);
    expect(rulesOf(judged('list.date', [['min', '2026-01-01']], '["2026-02-01","2025-12-31"]'))).toEqual([
      { field: 'value[1]', rule: { name: 'min', kind: 'broken', bound: '2026-01-01' } },
    ]);
    expect(rulesOf(judged('weight', [['max', '{"unit":"kg","value":2}']], '{"value":2001,"unit":"g"}'))).toEqual([
      { field: 'value', rule: { name: 'max', kind: 'broken', bound: '2 kg' } },
    ]);
  });

  it('list.min, list.max, max_precision, file types and a rating out of its scale', () => {
    expect(rulesOf(judged('list.url', [['list.max', '1']], '["https://a.example","https://b.example"]'))).toEqual([
      { field: 'value', rule: { name: 'list.max', kind: 'broken', bound: '1' } },
    ]);
    expect(rulesOf(judged('number_decimal', [['max_precision', '1']], '1.25'))).toEqual([
      { field: 'value', rule: { name: 'max_precision', kind: 'broken', bound: '1' } },
    ]);
    expect(rulesOf(judged('file_reference', [['file_type_options', '["Image"]']], 'gid://platform/Video/1'))).toEqual([
      { field: 'value', rule: { name: 'file_type_options', kind: 'broken', bound: 'Image' } },
    ]);
    const rating = [
      ['scale_min', '1'],
      ['scale_max', '5'],
    ] as [string, string][];
    expect(rulesOf(judged('rating', rating, '{"value":"4","scale_min":"0","scale_max":"5"}'))).toEqual([
      { field: 'value', rule: { name: 'scale_min', kind: 'scale', bound: '1' } },
    ]);
  });

  it('choices, allowed domains (on a link: its url) and regex name only the rule', () => {
    expect(rulesOf(judged('single_line_text_field', [['choices', '["red"]']], 'blue'))).toEqual([
      { field: 'value', rule: { name: 'choices', kind: 'broken' } },
    ]);
    expect(rulesOf(judged('link', [['allowed_domains', '["https://a.example"]']], '{"text":"x","url":"https://b.example"}'))).toEqual([
      { field: 'value.url', rule: { name: 'allowed_domains', kind: 'broken' } },
    ]);
    expect(rulesOf(judged('single_line_text_field', [['regex', '^a']], 'b'))).toEqual([
      { field: 'value', rule: { name: 'regex', kind: 'broken' } },
    ]);
  });

  it('a basic-check problem names no rule', () => {
    expect(rulesOf(judged('number_integer', [['min', '1']], 'one'))).toEqual([{ field: 'value', rule: undefined }]);
  });
});

describe('a definition whose rules are refused names the rule', () => {
  const issuesOf = (type: string, validations: [string, string][]) => {
    const result = tryCompileValidator({ type, validations: validations.map(([name, value]) => ({ name, value })) });
    return result.ok ? [] : rulesOf(result.issues);
  };

  it('a rule value of the wrong form: the reason, without the field or the rule name', () => {
    expect(issuesOf('single_line_text_field', [['max', 'ten']])).toEqual([
      {
        field: 'validations[0].value',
        rule: { name: 'max', kind: 'value', reason: 'must be a non-negative integer (a length in characters)' },
      },
    ]);
  });

  it('rules out of order name the upper one; a scale end alone names the missing one', () => {
    expect(
      issuesOf('number_integer', [
        ['min', '10'],
        ['max', '3'],
      ]),
    ).toEqual([{ field: 'validations', rule: { name: 'max', kind: 'order' } }]);
    expect(issuesOf('rating', [['scale_min', '1']])).toEqual([{ field: 'validations', rule: { name: 'scale_max', kind: 'pair' } }]);
  });
});

describe('references the store must hold', () => {
  it('a missing metaobject definition names the rule; a value of another definition breaks it', () => {
    expect(
      rulesOf(checkDefinitionReferences([{ field: 'validations[0].value', kind: 'metaobject_definition', id: '9' }], () => false)),
    ).toEqual([
      {
        field: 'validations[0].value',
        rule: { name: 'metaobject_definition_id', kind: 'value', reason: 'metaobject definition 9 does not exist' },
      },
    ]);
    const refs = [
      { field: 'value[0]', gid: 'gid://platform/Metaobject/1', id: '1', definitionId: '9' },
      { field: 'value[1]', gid: 'gid://platform/Metaobject/2', id: '2', definitionId: null },
    ];
    expect(rulesOf(checkMetaobjectReferences(refs, () => '8'))).toEqual([
      { field: 'value[0]', rule: { name: 'metaobject_definition_id', kind: 'broken' } },
    ]);
  });
});

describe('the rule is not part of the issue as data', () => {
  it('equality, keys and JSON see field and message only, as before', () => {
    const [issue] = judged('single_line_text_field', [['max', '2']], 'abc');
    expect(issue).toEqual({ field: 'value', message: 'value: has a maximum length of 2 (rule max)' });
    expect(Object.keys(issue!)).toEqual(['field', 'message']);
    expect(JSON.stringify(issue)).toBe('{"field":"value","message":"value: has a maximum length of 2 (rule max)"}');
    expect(issue!.rule).toEqual({ name: 'max', kind: 'broken', bound: '2' });
  });
});
