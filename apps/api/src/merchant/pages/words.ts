import { isListType, type Issue, type MetafieldType } from '@platform/domain';
import { html, type Html } from '../merchant-page';

// The merchant's words for what the API names (issue 47): types, access values, and problems as
// sentences. Problems are worded from their data (the issue's field and `issue.rule`), never by
// reading the API's message, which stays as it is for API clients.

/** Each type by the name a merchant knows it by (the API's name is shown small beside it). */
export const TYPE_WORDS: Readonly<Record<MetafieldType, string>> = {
  single_line_text_field: 'Single line text',
  multi_line_text_field: 'Multi-line text',
  boolean: 'True or false',
  date: 'Date',
  date_time: 'Date and time',
  weight: 'Weight',
  volume: 'Volume',
  dimension: 'Dimension',
  number_integer: 'Integer',
  number_decimal: 'Decimal',
  url: 'URL',
  link: 'Link',
  file_reference: 'File',
  rating: 'Rating',
  json: 'JSON',
  metaobject_reference: 'Metaobject',
  'list.single_line_text_field': 'List of single line texts',
  'list.date': 'List of dates',
  'list.date_time': 'List of dates and times',
  'list.weight': 'List of weights',
  'list.volume': 'List of volumes',
  'list.dimension': 'List of dimensions',
  'list.number_integer': 'List of integers',
  'list.number_decimal': 'List of decimals',
  'list.url': 'List of URLs',
  'list.link': 'List of links',
  'list.file_reference': 'List of files',
  'list.rating': 'List of ratings',
  'list.metaobject_reference': 'List of metaobjects',
};

export const typeWords = (type: string): string => TYPE_WORDS[type as MetafieldType] ?? type;

/** A type in words with its API name small beside it (for app developers). */
export function typeLabel(type: string): Html {
  return html`${typeWords(type)} <code class="api-name">${type}</code>`;
}

/** What an access value lets apps and the merchant do (spec, access permission values; decisions §8.7). */
export interface AccessWords {
  /** Short: the table's cell, the radio button's label. */
  label: string;
  /** One line: what it means, where it is chosen. */
  help: string;
}

/**
 * Access in words, as it behaves for a definition made by `maker` (undefined: the merchant). An
 * unset access is worded as the value it behaves as (decisions §8.7).
 */
export function accessWords(value: string, maker: string | undefined): AccessWords {
  const app = maker ?? 'The app that made it';
  switch (value) {
    case 'NONE':
      return { label: 'Apps can read and write', help: 'Every app with the metafield scopes can read and change its values.' };
    case 'PUBLIC_READ':
      return maker === undefined
        ? { label: 'Apps can read', help: 'Apps can read its values; only you change them.' }
        : { label: 'Apps can read', help: `${app} manages it; you can view it; other apps can read its values.` };
    case 'MERCHANT_READ_WRITE':
      return maker === undefined
        ? { label: 'Apps cannot see it', help: 'Only you see it and change its values.' }
        : { label: `Only ${maker} and you`, help: `${app} and you manage it; other apps cannot see it.` };
    case 'MERCHANT_READ':
      return {
        label: `Only ${maker ?? 'its app'}; you can view it`,
        help: `${app} manages it; you can view it; other apps cannot see it.`,
      };
    case 'PRIVATE':
      return { label: `Only ${maker ?? 'its app'}`, help: `Only ${maker ?? 'the app that made it'} can see it.` };
    default:
      return { label: value, help: '' };
  }
}

const plural = (n: string, one: string, many: string) => `${n} ${n === '1' ? one : many}`;

/** The first letter up and a full stop at the end: the API's phrase (`is too short (...)`) as a sentence. */
export function asSentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return trimmed;
  const first = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

/** An issue's own text, after its field (`key: is too short` -> `is too short`): the message is built as `field: text`. */
export function ownText(issue: Issue): string {
  return issue.message.startsWith(`${issue.field}: `) ? issue.message.slice(issue.field.length + 2) : issue.message;
}

type Bounded = 'length' | 'number' | 'date' | 'instant' | 'measure';

function boundedAs(type: string): Bounded {
  const element = isListType(type) ? type.slice(5) : type;
  if (element === 'single_line_text_field' || element === 'multi_line_text_field') return 'length';
  if (element === 'date') return 'date';
  if (element === 'date_time') return 'instant';
  if (element === 'weight' || element === 'volume' || element === 'dimension') return 'measure';
  return 'number';
}

const FILE_KINDS: Record<string, string> = {
  Image: 'an image',
  Video: 'a video',
  'Image or Video': 'an image or a video',
  'Video or Image': 'a video or an image',
};

/** A value that breaks a rule of its definition of type `type`, as a sentence; undefined when the issue names no rule. */
export function valueRuleSentence(issue: Issue, type: string): string | undefined {
  const rule = issue.rule;
  if (rule === undefined) return undefined;
  if (rule.kind === 'too_costly') return 'Is too long to check against the required format: shorten it.';
  if (rule.kind === 'scale') {
    return `Must be rated on the scale of this field (${rule.name === 'scale_min' ? 'lowest' : 'highest'} rating ${rule.bound}).`;
  }
  if (rule.kind !== 'broken') return undefined;
  const b = rule.bound ?? '';
  switch (rule.name) {
    case 'min':
    case 'max': {
      const at = rule.name === 'min' ? 'least' : 'most';
      switch (boundedAs(type)) {
        case 'length':
          return `Must be at ${at} ${plural(b, 'character', 'characters')}.`;
        case 'date':
          return `Must be on or ${rule.name === 'min' ? 'after' : 'before'} ${b}.`;
        case 'instant':
          return `Must be at or ${rule.name === 'min' ? 'after' : 'before'} ${b}.`;
        default:
          return `Must be at ${at} ${b}.`;
      }
    }
    case 'list.min':
      return `Must have at least ${plural(b, 'item', 'items')}.`;
    case 'list.max':
      return `Must have at most ${plural(b, 'item', 'items')}.`;
    case 'max_precision':
      return b === '0'
        ? 'Must be a whole number (no decimal places).'
        : `Must have at most ${plural(b, 'decimal place', 'decimal places')}.`;
    case 'choices':
      return 'Must be one of the allowed choices.';
    case 'allowed_domains':
      return 'Must link to one of the allowed sites.';
    case 'file_type_options':
      return `Must be ${FILE_KINDS[b] ?? b}.`;
    case 'regex':
      return 'Does not have the required format.';
    case 'schema':
      return `Does not have the required JSON structure: ${rule.reason ?? ''}`.trim();
    case 'scale_min':
      return `Must be at least ${b}.`;
    case 'scale_max':
      return `Must be at most ${b}.`;
    case 'metaobject_definition_id':
      return 'Must be a metaobject of the kind this field takes.';
  }
}

/** Where in a value an issue is (`value[2].url` -> `Item 3, url: `), before its sentence. */
function placeOf(field: string): string {
  const match = /^value(?:\[(\d+)\])?(?:\.(\w+))?/.exec(field);
  if (!match) return '';
  const item = match[1] !== undefined ? `Item ${Number(match[1]) + 1}` : '';
  const part = match[2] !== undefined ? (match[2] === 'url' ? 'URL' : match[2].replace(/_/g, ' ')) : '';
  const place = [item, part].filter((p) => p !== '').join(', ');
  return place === '' ? '' : `${place}: `;
}

/**
 * A problem of a written value (`value`, `value[1]`, `value.url`: the field after the form's own
 * prefix) as the sentence shown beside it: a broken rule in the merchant's words, anything else
 * (the basic check of the type) as the API's phrase made a sentence.
 */
export function valueSentence(issue: Issue, type: string): string {
  const place = placeOf(issue.field);
  const sentence = valueRuleSentence(issue, type) ?? asSentence(ownText(issue));
  return `${place}${sentence}`;
}

/** A rule value refused at definition time, in the words of its field (rule-fields.ts). */
function ruleValueSentence(name: string, reason: string, type: string): string {
  switch (name) {
    case 'min':
    case 'max': {
      const element = isListType(type) ? type.slice(5) : type;
      switch (boundedAs(type)) {
        case 'length':
          return 'Enter a whole number of characters (0 or more).';
        case 'date':
          return 'Enter a date, like 2026-12-31.';
        case 'instant':
          return 'Enter a date and time, like 2026-12-31T18:00:00+01:00.';
        case 'measure':
          return 'Enter a number (0 or more) and choose a unit.';
        default:
          return element === 'number_integer' ? 'Enter a whole number (0 or more).' : asSentence(reason);
      }
    }
    case 'list.min':
    case 'list.max':
      return 'Enter a whole number from 0 to 128.';
    case 'max_precision':
      return 'Enter a whole number from 0 to 9.';
    case 'scale_min':
    case 'scale_max':
      return 'Enter a number, like 1 or 4.5.';
    default:
      return asSentence(reason);
  }
}

const OUT_OF_ORDER: Record<string, string> = {
  max: 'Must not be less than the minimum.',
  'list.max': 'Must not be less than the minimum items.',
  scale_max: 'Must not be lower than the lowest rating.',
};

/**
 * A problem of a definition form as the sentence shown beside its field: a rule's problems in the
 * words of its field, any other (name, key, namespace, ...) as the API's phrase made a sentence.
 */
export function definitionSentence(issue: Issue, type: string): string {
  const rule = issue.rule;
  if (rule?.kind === 'value') return ruleValueSentence(rule.name, rule.reason, type);
  if (rule?.kind === 'order') return OUT_OF_ORDER[rule.name] ?? asSentence(ownText(issue));
  if (rule?.kind === 'pair') {
    return `Enter the ${rule.name === 'scale_min' ? 'lowest' : 'highest'} rating too: a rating scale needs both ends.`;
  }
  return asSentence(ownText(issue));
}

/**
 * Why a value is marked invalid, as sentences: from its problems judged again (data) when there are
 * some, else the re-check's stored reasons (the API's words: a missing metaobject, or rules changed
 * again since and the re-check not yet done).
 */
export function invalidSentences(value: { invalidReasons: readonly string[]; invalidIssues: readonly Issue[] }, type: string): string[] {
  return value.invalidIssues.length > 0 ? value.invalidIssues.map((issue) => valueSentence(issue, type)) : [...value.invalidReasons];
}
