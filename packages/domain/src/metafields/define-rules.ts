import { LIST_TYPES, type MetafieldType } from './define-types';

// The thirteen validation rules of the spec's rules table and the types each applies to.

export const RULE_NAMES = [
  'choices',
  'allowed_domains',
  'file_type_options',
  'list.min',
  'list.max',
  'min',
  'max',
  'max_precision',
  'regex',
  'scale_min',
  'scale_max',
  'schema',
  'metaobject_definition_id',
] as const;

export type RuleName = (typeof RULE_NAMES)[number];

export interface RuleInput {
  readonly name: string;
  readonly value: string;
}

const BOUNDED: readonly MetafieldType[] = [
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

export const RULE_TYPES: Readonly<Record<RuleName, readonly MetafieldType[]>> = {
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

const NAMES: ReadonlySet<string> = new Set(RULE_NAMES);

export function isRuleName(name: unknown): name is RuleName {
  return typeof name === 'string' && NAMES.has(name);
}

export function ruleAppliesTo(name: RuleName, type: MetafieldType): boolean {
  return RULE_TYPES[name].includes(type);
}

/** Rules a type accepts. */
export function rulesFor(type: MetafieldType): RuleName[] {
  return RULE_NAMES.filter((name) => ruleAppliesTo(name, type));
}

// Rule values are at most 300,000 characters (spec, Limits); characters are code points.
export const RULE_VALUE_MAX_LENGTH = 300_000;
export const CHOICES_MAX = 128;
export const ALLOWED_DOMAINS_MAX = 100;
export const LIST_RULE_MAX = 128;
export const MAX_PRECISION_MAX = 9;
