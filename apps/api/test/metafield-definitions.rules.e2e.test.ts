import { describe, expect, it } from 'vitest';
import { aDefinition, rulesPlatform } from './metafield-definitions.fixtures';

// The spec's "Metafield definition", "Validation rule object" and "Limits" tables, and decisions
// §8.1-§8.3, §8.11, §8.13, §8.14, each checked through the API (the domain package has the unit tests).

const rules = rulesPlatform();

/** Every data type the spec names ("Data types named anywhere"). */
const SPEC_TYPES = [
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
const LIST_TYPES = SPEC_TYPES.filter((type) => type.startsWith('list.'));
const BOUNDED = [
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
];

/** The spec's rules table, column "Applies to types". */
const APPLIES_TO: Record<string, string[]> = {
  choices: ['single_line_text_field', 'list.single_line_text_field'],
  allowed_domains: ['url', 'list.url', 'link', 'list.link'],
  file_type_options: ['file_reference', 'list.file_reference'],
  'list.min': LIST_TYPES,
  'list.max': LIST_TYPES,
  min: BOUNDED,
  max: BOUNDED,
  max_precision: ['number_decimal', 'list.number_decimal'],
  regex: ['single_line_text_field', 'multi_line_text_field', 'list.single_line_text_field'],
  scale_min: ['rating', 'list.rating'],
  scale_max: ['rating', 'list.rating'],
  schema: ['json'],
  metaobject_definition_id: ['metaobject_reference', 'list.metaobject_reference'],
};

/** A well-formed value of `rule` for `type` (column "Rule value format"). */
function validValue(rule: string, type: string): string {
  const element = type.replace(/^list\./, '');
  switch (rule) {
    case 'choices':
      return '["S","M","L"]';
    case 'allowed_domains':
      return '["https://example.com"]';
    case 'file_type_options':
      return '["Image","Video"]';
    case 'list.min':
      return '1';
    case 'list.max':
      return '5';
    case 'max_precision':
      return '2';
    case 'regex':
      return '^[A-Z]';
    case 'scale_min':
      return '1';
    case 'scale_max':
      return '5';
    case 'schema':
      return '{"type":"object","properties":{"a":{"type":"string"}}}';
    case 'metaobject_definition_id':
      return rules.metaobjectDefinitionId;
  }
  const low = rule === 'min';
  if (element.endsWith('text_field')) return low ? '1' : '10';
  if (element === 'date') return low ? '2024-01-01' : '2024-12-31';
  if (element === 'date_time') return low ? '2024-01-01T00:00:00Z' : '2024-12-31T23:59:59+08:00';
  const unit = { weight: 'kg', volume: 'ml', dimension: 'cm' }[element];
  if (unit) return JSON.stringify({ unit, value: low ? 1 : 10 });
  if (element === 'number_decimal') return low ? '-1.5' : '99.99';
  return low ? '0' : '100';
}

describe('the rules table: where each rule applies', () => {
  it.each(Object.keys(APPLIES_TO))('accepts %s on every type the spec lists for it', async (rule) => {
    for (const type of APPLIES_TO[rule]!) {
      // scale_min and scale_max must be configured together.
      const names = rule.startsWith('scale_') ? ['scale_min', 'scale_max'] : [rule];
      const validations = names.map((name) => ({ name, value: validValue(name, type) }));
      const r = await rules.defs.create(aDefinition({ type, validations }));
      expect(r.status, `${rule} on ${type}: ${r.text}`).toBe(201);
      expect(r.body.definition.validations).toEqual(validations);
    }
  });

  it.each(SPEC_TYPES)('refuses on %s every rule the spec does not list for it, naming each', async (type) => {
    const foreign = Object.keys(APPLIES_TO).filter((rule) => !APPLIES_TO[rule]!.includes(type));
    const validations = foreign.map((name) => ({ name, value: '1' }));
    const r = await rules.defs.create(aDefinition({ type, validations }));
    expect(r.status).toBe(422);
    const messages = r.body.errors.split('; ');
    foreign.forEach((name, i) => expect(messages).toContain(`validations[${i}].name: '${name}' does not apply to type ${type}`));
  });

  it('accepts every data type the spec names, without rules (validations are optional, decisions §8.8)', async () => {
    for (const type of SPEC_TYPES) {
      const r = await rules.defs.create(aDefinition({ type }));
      expect(r.status, type).toBe(201);
      expect(r.body.definition.type).toBe(type);
    }
  });
});

describe('the rules table: rule value formats and limits', () => {
  it.each([
    ['choices not JSON', 'single_line_text_field', [{ name: 'choices', value: 'S,M' }], /validations\[0\]\.value: .*\(rule choices\)/],
    ['choices empty', 'single_line_text_field', [{ name: 'choices', value: '[]' }], /at least one choice \(rule choices\)/],
    [
      'choices with a duplicate',
      'single_line_text_field',
      [{ name: 'choices', value: '["a","a"]' }],
      /duplicate choice "a" \(rule choices\)/,
    ],
    ['choices with a newline', 'single_line_text_field', [{ name: 'choices', value: '["a\\nb"]' }], /line breaks \(rule choices\)/],
    [
      '129 choices',
      'single_line_text_field',
      [{ name: 'choices', value: JSON.stringify(Array.from({ length: 129 }, (_, i) => `c${i}`)) }],
      /\(rule choices\)/,
    ],
    [
      'a bare domain',
      'url',
      [{ name: 'allowed_domains', value: '["example.com"]' }],
      /bare domain names are not supported\) \(rule allowed_domains\)/,
    ],
    [
      '101 allowed domains',
      'link',
      [{ name: 'allowed_domains', value: JSON.stringify(Array.from({ length: 101 }, (_, i) => `https://d${i}.example`)) }],
      /\(rule allowed_domains\)/,
    ],
    ['an unknown file type', 'file_reference', [{ name: 'file_type_options', value: '["Pdf"]' }], /\(rule file_type_options\)/],
    ['list.min above 128', 'list.url', [{ name: 'list.min', value: '129' }], /from 0 to 128 \(rule list\.min\)/],
    ['list.max negative', 'list.url', [{ name: 'list.max', value: '-1' }], /\(rule list\.max\)/],
    ['a negative integer min', 'number_integer', [{ name: 'min', value: '-1' }], /non-negative integer \(rule min\)/],
    ['a text length that is not an integer', 'single_line_text_field', [{ name: 'max', value: '2.5' }], /\(rule max\)/],
    ['an impossible date', 'date', [{ name: 'min', value: '2024-13-01' }], /\(rule min\)/],
    ['a measure without a unit', 'weight', [{ name: 'max', value: '{"value":3}' }], /\(rule max\)/],
    ['a measure with an unknown unit', 'volume', [{ name: 'max', value: '{"unit":"bucket","value":3}' }], /\(rule max\)/],
    ['max_precision above 9', 'number_decimal', [{ name: 'max_precision', value: '10' }], /from 0 to 9 \(rule max_precision\)/],
    ['a lookahead regex (RE2, decisions §8.11)', 'single_line_text_field', [{ name: 'regex', value: '^(?=a)' }], /RE2 .*\(rule regex\)/],
    ['a backreference regex', 'multi_line_text_field', [{ name: 'regex', value: '(a)\\1' }], /\(rule regex\)/],
    [
      'a scale that is not decimal',
      'rating',
      [
        { name: 'scale_min', value: 'one' },
        { name: 'scale_max', value: '5' },
      ],
      /\(rule scale_min\)/,
    ],
    ['schema that is not JSON', 'json', [{ name: 'schema', value: '{' }], /not valid JSON \(rule schema\)/],
    ['schema that is not a JSON Schema', 'json', [{ name: 'schema', value: '{"type":12}' }], /not a valid JSON Schema.*\(rule schema\)/],
    [
      'a malformed metaobject definition id',
      'metaobject_reference',
      [{ name: 'metaobject_definition_id', value: 'designer' }],
      /\(rule metaobject_definition_id\)/,
    ],
  ])('422s %s', async (_label, type, validations, message) => {
    const r = await rules.defs.create(aDefinition({ type, validations }));
    expect(r.status).toBe(422);
    expect(r.body.errors).toMatch(message);
  });

  it('accepts the limits themselves: 128 choices, 100 domains, list bounds 0 and 128, max_precision 0 and 9', async () => {
    const ok = [
      ['single_line_text_field', [{ name: 'choices', value: JSON.stringify(Array.from({ length: 128 }, (_, i) => `c${i}`)) }]],
      ['list.url', [{ name: 'allowed_domains', value: JSON.stringify(Array.from({ length: 100 }, (_, i) => `https://d${i}.example`)) }]],
      [
        'list.link',
        [
          { name: 'list.min', value: '0' },
          { name: 'list.max', value: '128' },
        ],
      ],
      ['number_decimal', [{ name: 'max_precision', value: '9' }]],
      ['list.number_decimal', [{ name: 'max_precision', value: '0' }]],
      ['file_reference', [{ name: 'file_type_options', value: '[]' }]],
      // Only choices must be non-empty (spec rules table): allowed_domains [] means no restriction.
      ['url', [{ name: 'allowed_domains', value: '[]' }]],
      ['list.link', [{ name: 'allowed_domains', value: '[]' }]],
    ] as const;
    for (const [type, validations] of ok) expect((await rules.defs.create(aDefinition({ type, validations }))).status, type).toBe(201);
  });

  it('decisions §8.11: 422s a regex whose compiled program is too large (RE2\'s "pattern too large"), naming the rule', async () => {
    const r = await rules.defs.create(aDefinition({ validations: [{ name: 'regex', value: '[\\s\\S]{1000}'.repeat(60) }] }));
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe(
      'validations[0].value: is too large a regular expression: its compiled program has more than 50000 instructions (at most 600) (rule regex)',
    );
    const one = await rules.defs.create(aDefinition({ validations: [{ name: 'regex', value: '^[\\s\\S]{1000}$' }] }));
    expect(one.body.errors).toBe(
      'validations[0].value: is too large a regular expression: its compiled program has 1004 instructions (at most 600) (rule regex)',
    );
    expect((await rules.defs.create(aDefinition({ validations: [{ name: 'regex', value: '^.{1,255}$' }] }))).status).toBe(201);
  });

  it('decisions §8.11: 422s a schema whose pattern is too large, naming the rule', async () => {
    const r = await rules.defs.create(
      aDefinition({
        type: 'json',
        validations: [{ name: 'schema', value: JSON.stringify({ properties: { code: { pattern: '[\\s\\S]{1000}' } } }) }],
      }),
    );
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe(
      'validations[0].value: has a pattern too large, "[\\\\s\\\\S]{1000}": its compiled program has 1002 instructions (at most 600) (rule schema)',
    );
  });

  it("accepts a schema rule value of 300,000 characters (the spec's bound of any rule value)", async () => {
    // At most 300 objects and arrays (issue 8: compile time), so the rest of the text is descriptions.
    const properties = Object.fromEntries(
      Array.from({ length: 290 }, (_, i) => [`p${i}`, { type: 'string', description: `Field ${i} of the specification sheet` }]),
    );
    const base = JSON.stringify({ type: 'object', properties });
    const schema = `${base.slice(0, -1)},"description":${JSON.stringify('d'.repeat(300_000 - base.length - 17))}}`;
    expect(schema.length).toBe(300_000);
    const r = await rules.defs.create(aDefinition({ type: 'json', validations: [{ name: 'schema', value: schema }] }));
    expect(r.status, r.text.slice(0, 200)).toBe(201);
    const over = await rules.defs.create(aDefinition({ type: 'json', validations: [{ name: 'schema', value: `${schema} ` }] }));
    expect(over.body.errors).toBe('validations[0].value: is too long (maximum is 300000 characters)');
  });

  it('counts a rule value up to 300,000 characters, and refuses one more', async () => {
    const entry = (length: number) => JSON.stringify(['x'.repeat(length - 4)]);
    const at = await rules.defs.create(aDefinition({ validations: [{ name: 'choices', value: entry(300_000) }] }));
    expect(at.status).toBe(201);
    const over = await rules.defs.create(aDefinition({ validations: [{ name: 'choices', value: entry(300_001) }] }));
    expect(over.status).toBe(422);
    expect(over.body.errors).toBe('validations[0].value: is too long (maximum is 300000 characters)');
  });
});

describe('rules on the array', () => {
  it.each([
    [
      'min above max (text lengths)',
      'single_line_text_field',
      [
        { name: 'min', value: '5' },
        { name: 'max', value: '4' },
      ],
      'validations: min must be less than or equal to max',
    ],
    [
      'min above max (dates)',
      'date',
      [
        { name: 'min', value: '2025-01-02' },
        { name: 'max', value: '2025-01-01' },
      ],
      'validations: min must be less than or equal to max',
    ],
    [
      'min above max across units (1 kg > 500 g, decisions §8.13)',
      'weight',
      [
        { name: 'min', value: '{"unit":"kg","value":1}' },
        { name: 'max', value: '{"unit":"g","value":500}' },
      ],
      'validations: min must be less than or equal to max',
    ],
    [
      'list.min above list.max',
      'list.date',
      [
        { name: 'list.min', value: '3' },
        { name: 'list.max', value: '2' },
      ],
      'validations: list.min must be less than or equal to list.max',
    ],
    [
      'scale_min above scale_max',
      'rating',
      [
        { name: 'scale_min', value: '5' },
        { name: 'scale_max', value: '1' },
      ],
      'validations: scale_min must be less than or equal to scale_max',
    ],
    [
      'scale_min without scale_max',
      'rating',
      [{ name: 'scale_min', value: '1' }],
      'validations: scale_min must be configured together with scale_max',
    ],
    [
      'scale_max without scale_min',
      'list.rating',
      [{ name: 'scale_max', value: '5' }],
      'validations: scale_max must be configured together with scale_min',
    ],
  ])('422s %s', async (_label, type, validations, message) => {
    const r = await rules.defs.create(aDefinition({ type, validations }));
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe(message);
  });

  it('accepts equal bounds (bounds are inclusive, decisions §8.13)', async () => {
    const r = await rules.defs.create(
      aDefinition({
        type: 'number_integer',
        validations: [
          { name: 'min', value: '3' },
          { name: 'max', value: '3' },
        ],
      }),
    );
    expect(r.status).toBe(201);
  });

  it('422s a rule name that appears twice (spec Errors 4)', async () => {
    const r = await rules.defs.create(
      aDefinition({
        validations: [
          { name: 'regex', value: 'a' },
          { name: 'regex', value: 'b' },
        ],
      }),
    );
    expect(r.status).toBe(422);
    expect(r.body.errors).toMatch(/^validations\[1\]\.name: 'regex' appears more than once/);
  });

  it('422s a rule name outside the supported set (spec Errors 4)', async () => {
    const r = await rules.defs.create(aDefinition({ validations: [{ name: 'max_length', value: '3' }] }));
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe("validations[0].name: 'max_length' is not a supported rule");
  });

  it.each([
    ['an empty name', { name: '', value: '3' }, "validations[0].name: can't be blank"],
    ['an empty value', { name: 'max', value: '' }, "validations[0].value: can't be blank"],
    ['a missing value', { name: 'max' }, "validations[0].value: can't be blank"],
    ['a number value (values are strings)', { name: 'max', value: 3 }, 'validations[0].value: must be a string'],
    ['a rule that is not an object', 'max=3', 'validations[0]: must be an object with name and value'],
  ])('422s %s (spec Errors 4)', async (_label, rule, message) => {
    const r = await rules.defs.create(aDefinition({ validations: [rule] }));
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe(message);
  });

  it('422s validations that are not an array', async () => {
    const r = await rules.defs.create(aDefinition({ validations: { name: 'max', value: '3' } }));
    expect(r.body.errors).toBe('validations: must be an array');
  });
});
