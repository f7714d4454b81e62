import { describe, expect, it } from 'vitest';
import { checkRuleSet, type CompiledRuleSet } from './compile-rule-set';
import { RULE_NAMES, RULE_TYPES, isRuleName, rulesFor, type RuleName } from './define-rules';
import { METAFIELD_TYPES, checkedTypeOf, type MetafieldType } from './define-types';
import type { Issue } from './format-issues';

function run(type: MetafieldType | null, validations: unknown): { set: CompiledRuleSet | undefined; messages: string[] } {
  const issues: Issue[] = [];
  const set = checkRuleSet(type, validations, issues);
  return { set, messages: issues.map((i) => i.message) };
}
const problems = (type: MetafieldType | null, validations: unknown) => run(type, validations).messages;
const rules = (...pairs: [string, string][]) => pairs.map(([name, value]) => ({ name, value }));

// The spec's rules table, "Applies to types", verbatim.
const SPEC_APPLIES_TO: Record<string, string[]> = {
  choices: ['single_line_text_field', 'list.single_line_text_field'],
  allowed_domains: ['url', 'list.url', 'link', 'list.link'],
  file_type_options: ['file_reference', 'list.file_reference'],
  'list.min': METAFIELD_TYPES.filter((t) => t.startsWith('list.')),
  'list.max': METAFIELD_TYPES.filter((t) => t.startsWith('list.')),
  min: [
    'single_line_text_field',
    'multi_line_text_field',
    'date',
    'list.date',
    'date_time',
    'list.date_time',
    'weight',
    'list.weight',
    'volume',
    'list.volume',
    'dimension',
    'list.dimension',
    'number_integer',
    'list.number_integer',
    'number_decimal',
    'list.number_decimal',
    'list.single_line_text_field',
  ],
  max_precision: ['number_decimal', 'list.number_decimal'],
  regex: ['single_line_text_field', 'multi_line_text_field', 'list.single_line_text_field'],
  scale_min: ['rating', 'list.rating'],
  schema: ['json'],
  metaobject_definition_id: ['metaobject_reference', 'list.metaobject_reference'],
};
SPEC_APPLIES_TO['max'] = SPEC_APPLIES_TO['min'] as string[];
SPEC_APPLIES_TO['scale_max'] = SPEC_APPLIES_TO['scale_min'] as string[];

// A well-formed value of each rule for a type it applies to.
function sampleValue(name: RuleName, type: MetafieldType): string {
  const element = checkedTypeOf(type);
  if (name === 'min' || name === 'max') {
    if (element === 'date') return '2026-01-01';
    if (element === 'date_time') return '2026-01-01T00:00:00Z';
    if (element === 'weight') return '{"unit":"kg","value":1}';
    if (element === 'volume') return '{"unit":"l","value":1}';
    if (element === 'dimension') return '{"unit":"m","value":1}';
    return '5';
  }
  const samples: Record<string, string> = {
    choices: '["a"]',
    allowed_domains: '["https://a.example"]',
    file_type_options: '["Image"]',
    'list.min': '1',
    'list.max': '2',
    max_precision: '2',
    regex: 'a',
    scale_min: '1',
    scale_max: '5',
    schema: '{}',
    metaobject_definition_id: '1',
  };
  return samples[name] as string;
}

describe('rule names and applicability (spec rules table)', () => {
  it('are the thirteen rules of the spec, applying to the types it names', () => {
    expect([...RULE_NAMES].sort()).toEqual(Object.keys(SPEC_APPLIES_TO).sort());
    for (const name of RULE_NAMES) expect([...RULE_TYPES[name]].sort(), name).toEqual([...(SPEC_APPLIES_TO[name] as string[])].sort());
    expect(isRuleName('choices')).toBe(true);
    expect(isRuleName('Choices')).toBe(false);
    expect(rulesFor('rating')).toEqual(['scale_min', 'scale_max']);
  });

  for (const name of RULE_NAMES) {
    it(`${name}: accepted on the types it applies to, refused on every other`, () => {
      for (const type of METAFIELD_TYPES) {
        const applies = (SPEC_APPLIES_TO[name] as string[]).includes(type);
        const messages = problems(type, rules([name, applies ? sampleValue(name, type) : 'x']));
        const refusal = `validations[0].name: '${name}' does not apply to type ${type}`;
        if (applies)
          expect(
            messages.filter((m) => m.startsWith('validations[0]')),
            `${name} on ${type}`,
          ).toEqual([]);
        else expect(messages, `${name} on ${type}`).toEqual([refusal]);
      }
    });
  }
});

describe('the validations array (spec "Rules on the array")', () => {
  it('is optional', () => {
    expect(run('boolean', undefined).set).toMatchObject({ checks: [], rules: [] });
    expect(run('boolean', null).set).toMatchObject({ checks: [] });
    expect(run('boolean', []).set).toMatchObject({ checks: [] });
  });

  it('must be an array of {name, value} objects', () => {
    expect(problems('boolean', {})).toEqual(['validations: must be an array']);
    expect(problems('boolean', ['min'])).toEqual(['validations[0]: must be an object with name and value']);
  });

  it('requires name and value, non-empty strings', () => {
    expect(problems('single_line_text_field', [{}])).toEqual([
      "validations[0].name: can't be blank",
      "validations[0].value: can't be blank",
    ]);
    expect(problems('single_line_text_field', rules(['', '']))).toEqual([
      "validations[0].name: can't be blank",
      "validations[0].value: can't be blank",
    ]);
    expect(problems('single_line_text_field', [{ name: 'max', value: 5 }])).toEqual(['validations[0].value: must be a string']);
    expect(problems('single_line_text_field', [{ name: 1, value: '5' }])).toEqual(['validations[0].name: must be a string']);
    expect(problems('single_line_text_field', [{ name: 'max', value: null }])).toEqual(["validations[0].value: can't be blank"]);
  });

  it('refuses an unsupported rule name', () => {
    expect(problems('single_line_text_field', rules(['max', '5'], ['foo', 'x']))).toEqual([
      "validations[1].name: 'foo' is not a supported rule",
    ]);
    expect(problems(null, rules(['foo', 'x']))).toEqual(["validations[0].name: 'foo' is not a supported rule"]);
  });

  it('refuses a rule name given twice', () => {
    expect(problems('single_line_text_field', rules(['max', '5'], ['max', '6']))).toEqual([
      "validations[1].name: 'max' appears more than once (each rule at most once per definition)",
    ]);
  });

  it('bounds each value at 300,000 characters (code points)', () => {
    expect(problems('single_line_text_field', rules(['regex', 'a'.repeat(300_001)]))).toEqual([
      'validations[0].value: is too long (maximum is 300000 characters)',
    ]);
    // 300,000 code points (600,000 UTF-16 units) is within the bound.
    expect(problems('single_line_text_field', rules(['choices', JSON.stringify(['😀'.repeat(299_996)])]))).toEqual([]);
  });

  it('reports every problem at once', () => {
    expect(problems('single_line_text_field', rules(['foo', 'x'], ['max', 'ten'], ['max', '1'], ['schema', '{}']))).toEqual([
      "validations[0].name: 'foo' is not a supported rule",
      'validations[1].value: must be a non-negative integer (a length in characters) (rule max)',
      "validations[2].name: 'max' appears more than once (each rule at most once per definition)",
      "validations[3].name: 'schema' does not apply to type single_line_text_field",
    ]);
  });

  it('checks only type-independent things when the type is unknown', () => {
    expect(problems(null, rules(['max', 'ten'], ['max', '1']))).toEqual([
      "validations[1].name: 'max' appears more than once (each rule at most once per definition)",
    ]);
    expect(run(null, []).set).toBeUndefined();
  });
});

describe('constraints between rules (spec "Rules on the array" 3)', () => {
  it('min must not exceed max; equal is fine', () => {
    expect(problems('single_line_text_field', rules(['min', '5'], ['max', '4']))).toEqual([
      'validations: min must be less than or equal to max',
    ]);
    expect(problems('single_line_text_field', rules(['min', '5'], ['max', '5']))).toEqual([]);
    expect(problems('number_decimal', rules(['max', '-1'], ['min', '-0.5']))).toEqual([
      'validations: min must be less than or equal to max',
    ]);
    expect(problems('date', rules(['min', '2026-02-01'], ['max', '2026-01-31']))).toEqual([
      'validations: min must be less than or equal to max',
    ]);
    expect(problems('date_time', rules(['min', '2026-01-01T01:00:00+01:00'], ['max', '2026-01-01']))).toEqual([]);
    expect(problems('list.weight', rules(['min', '{"unit":"kg","value":1}'], ['max', '{"unit":"lb","value":2}']))).toEqual([
      'validations: min must be less than or equal to max',
    ]);
    expect(problems('weight', rules(['min', '{"unit":"oz","value":16}'], ['max', '{"unit":"lb","value":1}']))).toEqual([]);
  });

  it('list.min must not exceed list.max', () => {
    expect(problems('list.url', rules(['list.min', '3'], ['list.max', '2']))).toEqual([
      'validations: list.min must be less than or equal to list.max',
    ]);
    expect(problems('list.url', rules(['list.min', '2'], ['list.max', '2']))).toEqual([]);
  });

  it('scale_min and scale_max come together, scale_min <= scale_max', () => {
    expect(problems('rating', rules(['scale_min', '1']))).toEqual(['validations: scale_min must be configured together with scale_max']);
    expect(problems('list.rating', rules(['scale_max', '5']))).toEqual([
      'validations: scale_max must be configured together with scale_min',
    ]);
    expect(problems('rating', rules(['scale_min', '5'], ['scale_max', '1']))).toEqual([
      'validations: scale_min must be less than or equal to scale_max',
    ]);
    expect(problems('rating', rules(['scale_min', '5'], ['scale_max', '5.0']))).toEqual([]);
  });

  it('does not pair scale rules on a type they do not apply to', () => {
    expect(problems('boolean', rules(['scale_min', '1']))).toEqual(["validations[0].name: 'scale_min' does not apply to type boolean"]);
  });
});

describe('compiled set', () => {
  it('keeps the rules as given, list bounds apart, and checks in definition order', () => {
    const { set } = run('list.single_line_text_field', rules(['regex', '^a'], ['list.max', '3'], ['choices', '["ab"]'], ['list.min', '1']));
    expect(set?.rules).toEqual(rules(['regex', '^a'], ['list.max', '3'], ['choices', '["ab"]'], ['list.min', '1']));
    expect(set?.listMin).toBe(1);
    expect(set?.listMax).toBe(3);
    expect(set?.checks).toHaveLength(2);
  });

  it('surfaces the metaobject definition reference for the caller to check', () => {
    const { set } = run(
      'list.metaobject_reference',
      rules(['list.max', '2'], ['metaobject_definition_id', 'gid://platform/MetaobjectDefinition/77']),
    );
    expect(set?.metaobjectDefinitionId).toBe('77');
    expect(set?.references).toEqual([{ field: 'validations[1].value', kind: 'metaobject_definition', id: '77' }]);
    expect(run('metaobject_reference', []).set?.references).toEqual([]);
  });
});
