import {
  elementTypeOf,
  isListType,
  isSupportedType,
  LIST_MAX_ELEMENTS,
  rulesFor,
  unitsOf,
  type Issue,
  type MeasureDimension,
  type NormalizedRule,
  type RuleName,
} from '@platform/domain';
import type { FormFields } from './merchant-session.guard';

/** One rule as the API takes it (`{"name": "max", "value": "12"}`). */
export interface RuleRow {
  name: string;
  value: string;
}

// A definition's validation rules as fields of its type (issue 47): only the rules the type allows
// (decisions §8, the spec's rules table), each a control of its own kind, posted as the same rule set
// the API takes. The form only encodes what was typed; the domain judges every value.

/** The control a rule gets. */
export type RuleControl =
  | 'count' // a whole number: lengths, list sizes, decimal places
  | 'number' // a number as written (integer or decimal bounds, rating ends)
  | 'date'
  | 'datetime'
  | 'measure' // a number and a unit
  | 'rows' // a list, one entry a row (choices, allowed sites)
  | 'kinds' // checkboxes (file types)
  | 'text' // one line as typed (a regular expression, an id)
  | 'schema'; // JSON text

export interface RuleField {
  rule: RuleName;
  /** The form field's name and id: `rule.min` (rows: `rule.choices.0`, ...; a measure's unit: `rule.min.unit`). */
  name: string;
  label: string;
  /** One line: what the rule does. */
  help: string;
  control: RuleControl;
  /** Shown under "Advanced" (a regular expression, a JSON schema). */
  advanced: boolean;
  /** A measure's units. */
  units?: readonly string[];
}

/** The file kinds of `file_type_options` (decisions §8.14), with what each covers (spec rules table). */
export const FILE_KINDS: readonly (readonly [string, string])[] = [
  ['Image', 'Images (JPEG, PNG, WEBP, SVG, GIF)'],
  ['Video', 'Videos (MP4)'],
];

/** Rows a list rule reads at most: the most entries any rule takes (choices: 128), so nothing posted is silently dropped. */
const MAX_ROWS = LIST_MAX_ELEMENTS;

const MEASURE_WORDS: Record<MeasureDimension, string> = { weight: 'weight', volume: 'volume', dimension: 'size' };

function boundField(rule: 'min' | 'max', type: string): RuleField {
  const element = elementTypeOf(type) ?? type;
  // A list's bound holds for each item: said first, and the help starts with a capital either way.
  const each = (text: string) => (isListType(type) ? `Each item: ${text}` : `${text[0]!.toUpperCase()}${text.slice(1)}`);
  const isMin = rule === 'min';
  const name = `rule.${rule}`;
  const base = { rule, name, advanced: false };
  switch (element) {
    case 'single_line_text_field':
    case 'multi_line_text_field':
      return {
        ...base,
        label: isMin ? 'Minimum characters' : 'Maximum characters',
        help: each(`${isMin ? 'at least' : 'at most'} this many characters.`),
        control: 'count',
      };
    case 'number_integer':
      return {
        ...base,
        label: isMin ? 'Minimum' : 'Maximum',
        help: each(`the ${isMin ? 'smallest' : 'largest'} number allowed (0 or more).`),
        control: 'number',
      };
    case 'number_decimal':
      return {
        ...base,
        label: isMin ? 'Minimum' : 'Maximum',
        help: each(`the ${isMin ? 'smallest' : 'largest'} number allowed (may be negative).`),
        control: 'number',
      };
    case 'date':
      return {
        ...base,
        label: isMin ? 'Earliest date' : 'Latest date',
        help: each(`no date ${isMin ? 'before' : 'after'} this one.`),
        control: 'date',
      };
    case 'date_time':
      return {
        ...base,
        label: isMin ? 'Earliest date and time' : 'Latest date and time',
        help: each(`like 2026-12-31T18:00:00+01:00 (without an offset: UTC).`),
        control: 'datetime',
      };
    default: {
      const dimension = element as MeasureDimension;
      return {
        ...base,
        label: `${isMin ? 'Minimum' : 'Maximum'} ${MEASURE_WORDS[dimension]}`,
        help: each('a number (0 or more) and its unit; other units are converted to compare.'),
        control: 'measure',
        units: unitsOf(dimension),
      };
    }
  }
}

function fieldOf(rule: RuleName, type: string): RuleField {
  const name = `rule.${rule}`;
  const base = { rule, name, advanced: false };
  switch (rule) {
    case 'min':
    case 'max':
      return boundField(rule, type);
    case 'list.min':
      return { ...base, label: 'Minimum items', help: 'The fewest items the list may hold (0 to 128).', control: 'count' };
    case 'list.max':
      return { ...base, label: 'Maximum items', help: 'The most items the list may hold (0 to 128).', control: 'count' };
    case 'max_precision':
      return {
        ...base,
        label: 'Maximum decimal places',
        help: 'Values with more decimal places are refused, never rounded (0 to 9).',
        control: 'count',
      };
    case 'choices':
      return { ...base, label: 'Allowed choices', help: 'One choice a row: a value must be exactly one of them.', control: 'rows' };
    case 'allowed_domains':
      return {
        ...base,
        label: 'Allowed sites',
        help: 'One address a row, like https://example.com: links must lead to one of them.',
        control: 'rows',
      };
    case 'file_type_options':
      return { ...base, label: 'File types', help: 'Leave both unchecked to allow any file.', control: 'kinds' };
    case 'regex':
      return {
        ...base,
        label: 'Regular expression',
        help: 'RE2 syntax. It searches the value: write ^...$ to match the whole value.',
        control: 'text',
        advanced: true,
      };
    case 'scale_min':
      return { ...base, label: 'Lowest rating', help: 'The bottom of the rating scale, like 1 (set both ends).', control: 'number' };
    case 'scale_max':
      return { ...base, label: 'Highest rating', help: 'The top of the rating scale, like 5 (set both ends).', control: 'number' };
    case 'schema':
      return {
        ...base,
        label: 'JSON schema',
        help: 'A JSON Schema (draft 2020-12) the value must conform to.',
        control: 'schema',
        advanced: true,
      };
    case 'metaobject_definition_id':
      return {
        ...base,
        label: 'Metaobject definition',
        help: 'The id of the metaobject definition the chosen metaobjects must belong to.',
        control: 'text',
      };
  }
}

/** The rule fields of a type, in the order of the spec's rules table; none for a type the API does not know. */
export function ruleFieldsFor(type: string): RuleField[] {
  return isSupportedType(type) ? rulesFor(type).map((rule) => fieldOf(rule, type)) : [];
}

/** The posted rows of a list rule (`rule.choices.0`, `rule.choices.1`, ...). */
export function postedRuleRows(form: FormFields, name: string): string[] {
  const rows: string[] = [];
  for (let i = 0; i < MAX_ROWS + SPARE_ROWS; i++) {
    const row = form[`${name}.${i}`];
    if (row === undefined) break;
    rows.push(row);
  }
  return rows;
}

/** Empty rows a list rule offers after its entries. */
export const SPARE_ROWS = 3;

/** A measure bound as the API takes it: the number as typed (a JSON number when it reads as one). */
function measureText(value: string, unit: string): string {
  const number = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(value) ? value : JSON.stringify(value);
  return `{"value":${number},"unit":${JSON.stringify(unit)}}`;
}

/**
 * The posted rule fields of a type as the API's `validations` (a field left empty sends no rule),
 * and the rule each entry is, for placing the API's problems (`validations[1].value`) beside it.
 */
export function encodeRules(type: string, form: FormFields): { rules: RuleRow[]; order: RuleName[] } {
  const rules: RuleRow[] = [];
  const order: RuleName[] = [];
  const add = (rule: RuleName, value: string) => {
    rules.push({ name: rule, value });
    order.push(rule);
  };
  for (const field of ruleFieldsFor(type)) {
    const raw = form[field.name] ?? '';
    switch (field.control) {
      case 'rows': {
        const rows = postedRuleRows(form, field.name).filter((row) => row.trim() !== '');
        if (rows.length > 0) add(field.rule, JSON.stringify(rows));
        break;
      }
      case 'kinds': {
        const kinds = FILE_KINDS.map(([kind]) => kind).filter((kind) => form[`${field.name}.${kind}`] === 'on');
        if (kinds.length > 0) add(field.rule, JSON.stringify(kinds));
        break;
      }
      case 'measure':
        if (raw.trim() !== '') add(field.rule, measureText(raw.trim(), form[`${field.name}.unit`] ?? field.units?.[0] ?? ''));
        break;
      case 'text':
      case 'schema':
        // As typed: spaces may be part of a pattern.
        if (raw.trim() !== '') add(field.rule, raw);
        break;
      default:
        if (raw.trim() !== '') add(field.rule, raw.trim());
    }
  }
  return { rules, order };
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A definition's stored rules as the values of its type's rule fields (what the edit form shows). */
export function ruleFormOf(type: string, rules: readonly NormalizedRule[]): Record<string, string> {
  const form: Record<string, string> = {};
  const fields = new Map(ruleFieldsFor(type).map((f) => [f.rule as string, f]));
  for (const { name, value } of rules) {
    const field = fields.get(name);
    if (!field) continue;
    const parsed = field.control === 'rows' || field.control === 'kinds' || field.control === 'measure' ? jsonOf(value) : undefined;
    if (field.control === 'rows' && Array.isArray(parsed)) {
      parsed.forEach((row, i) => (form[`${field.name}.${i}`] = String(row)));
    } else if (field.control === 'kinds' && Array.isArray(parsed)) {
      for (const kind of parsed) form[`${field.name}.${String(kind)}`] = 'on';
    } else if (field.control === 'measure' && typeof parsed === 'object' && parsed !== null) {
      const measure = parsed as { value?: unknown; unit?: unknown };
      form[field.name] = String(measure.value ?? '');
      form[`${field.name}.unit`] = String(measure.unit ?? '');
    } else {
      form[field.name] = value;
    }
  }
  return form;
}

/**
 * The form field an API problem of a definition is shown beside: a rule's own problems
 * (`validations[1].value`, or two rules out of order, named by `issue.rule`) beside that rule's
 * field; a problem of the rules as a whole beside the rules; any other field as the API names it.
 */
export function ruleFieldOfIssue(issue: Issue, order: readonly RuleName[], type: string): string | undefined {
  const indexed = /^validations\[(\d+)\]/.exec(issue.field);
  if (indexed) {
    const rule = order[Number(indexed[1])];
    return rule === undefined ? 'rules' : `rule.${rule}`;
  }
  if (issue.field !== 'validations' && !issue.field.startsWith('validations')) return undefined;
  const named = issue.rule?.name;
  return named !== undefined && ruleFieldsFor(type).some((f) => f.rule === named) ? `rule.${named}` : 'rules';
}
