import type { Decimal } from 'decimal.js';
import { boundCheck, parseBound, type Bound } from './compile-bounds';
import { compileRe2 } from './compile-regex';
import { compileJsonSchema } from './compile-schema';
import { ruleFailure, type ElementCheck } from './define-checks';
import { trySpend } from './schema-check-budget';
import { ALLOWED_DOMAINS_MAX, CHOICES_MAX, LIST_RULE_MAX, MAX_PRECISION_MAX, type RuleName } from './define-rules';
import type { ScalarType } from './define-types';
import type { DecimalValue, FileReferenceValue, JsonValue, LinkValue, RatingValue, TextValue, UrlValue } from './define-values';
import { hasLineBreak, isResourceId, parseDecimalText, parseGid } from './parse-scalars';
import { parseUrlText } from './parse-url';

// Each rule's value format (spec rules table) compiled once into a check on one value or element.

export interface CompiledRule {
  readonly check: ElementCheck | null;
  /** list.min / list.max: the element count bound. */
  readonly count?: number;
  /** min / max, for the min <= max constraint. */
  readonly bound?: Bound;
  /** scale_min / scale_max, for the scale_min <= scale_max constraint. */
  readonly scale?: Decimal;
  /** metaobject_definition_id: the referenced definition's numeric id (the caller checks it exists). */
  readonly metaobjectDefinitionId?: string;
  /** choices: the allowed values. */
  readonly choices?: ReadonlySet<string>;
  /** regex: the same check, keeping the verdicts of `known` strings once taken (see compile-rule-set). */
  readonly checkKnowing?: (known: Iterable<string>) => ElementCheck;
  /** Memory held beyond the rule's text, estimated in bytes (a compiled pattern or schema). */
  readonly bytes?: number;
}

/** Compiles rule `name` for values of `type` (the element type for lists); a string is the problem. */
export type RuleCompiler = (type: ScalarType, raw: string) => CompiledRule | string;

function jsonStringArray(raw: string): string[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  return Array.isArray(parsed) && parsed.every((e) => typeof e === 'string') ? (parsed as string[]) : undefined;
}

const NOT_STRING_ARRAY = 'must be a JSON array of strings';

const choices: RuleCompiler = (_type, raw) => {
  const list = jsonStringArray(raw);
  if (list === undefined) return NOT_STRING_ARRAY;
  if (list.length === 0) return 'must contain at least one choice';
  if (list.length > CHOICES_MAX) return `has too many choices (maximum is ${CHOICES_MAX})`;
  if (list.some((c) => c === '')) return 'must not contain an empty choice';
  if (list.some(hasLineBreak)) return 'must not contain line breaks';
  const set = new Set(list);
  if (set.size !== list.length) {
    const duplicate = list.find((c, i) => list.indexOf(c) !== i);
    return `has a duplicate choice ${JSON.stringify(duplicate)}`;
  }
  const fail = ruleFailure('does not exist in provided choices (rule choices)', { name: 'choices', kind: 'broken' });
  return { check: (v) => (set.has((v as TextValue).text) ? null : fail), choices: set };
};

const WEB_SCHEMES: ReadonlySet<string> = new Set(['http', 'https']);

// decisions §8.13: the value's origin (scheme, host, port; default ports dropped) must equal an
// entry's origin. Entries are http(s) URLs: only those have an origin to compare.
const allowedDomains: RuleCompiler = (type, raw) => {
  const list = jsonStringArray(raw);
  if (list === undefined) return NOT_STRING_ARRAY;
  if (list.length > ALLOWED_DOMAINS_MAX) return `has too many entries (maximum is ${ALLOWED_DOMAINS_MAX})`;
  const origins = new Set<string>();
  for (const entry of list) {
    const url = parseUrlText(entry, WEB_SCHEMES);
    if (typeof url === 'string' || url.origin === null) {
      return `${JSON.stringify(entry)} is not a complete URL with protocol http or https (bare domain names are not supported)`;
    }
    origins.add(url.origin);
  }
  // The spec requires a non-empty array only for choices: an empty one means no origin restriction,
  // as file_type_options' empty array means no file-type restriction.
  if (origins.size === 0) return { check: null };
  const isLink = type === 'link';
  const fail = ruleFailure(
    'is not from an allowed domain (rule allowed_domains)',
    { name: 'allowed_domains', kind: 'broken' },
    isLink ? '.url' : '',
  );
  return {
    check: (v) => {
      const origin = (isLink ? (v as LinkValue).url : (v as UrlValue)).origin;
      return origin !== null && origins.has(origin) ? null : fail;
    },
  };
};

// decisions §8.14: the kind comes from the global id: MediaImage is Image, Video is Video,
// GenericFile is neither.
const FILE_KINDS: Readonly<Record<string, string | undefined>> = { MediaImage: 'Image', Video: 'Video' };

const fileTypeOptions: RuleCompiler = (_type, raw) => {
  const list = jsonStringArray(raw);
  if (list === undefined) return NOT_STRING_ARRAY;
  const unknown = list.find((k) => k !== 'Image' && k !== 'Video');
  if (unknown !== undefined) return `${JSON.stringify(unknown)} is not a file type (use Image or Video)`;
  // An empty array means no file-type restriction.
  if (list.length === 0) return { check: null };
  const allowed = new Set(list);
  const kinds = [...allowed].join(' or ');
  const fail = ruleFailure(`must be a file of type ${kinds} (rule file_type_options)`, {
    name: 'file_type_options',
    kind: 'broken',
    bound: kinds,
  });
  return {
    check: (v) => {
      const kind = FILE_KINDS[(v as FileReferenceValue).fileType];
      return kind !== undefined && allowed.has(kind) ? null : fail;
    },
  };
};

const COUNT = /^(?:0|[1-9][0-9]{0,2})$/;

const listCount: RuleCompiler = (_type, raw) => {
  if (!COUNT.test(raw) || Number(raw) > LIST_RULE_MAX) return `must be an integer from 0 to ${LIST_RULE_MAX}`;
  return { check: null, count: Number(raw) };
};

function bound(rule: 'min' | 'max'): RuleCompiler {
  return (type, raw) => {
    const parsed = parseBound(type, raw);
    return typeof parsed === 'string' ? parsed : { check: boundCheck(parsed, rule), bound: parsed };
  };
}

const maxPrecision: RuleCompiler = (_type, raw) => {
  if (!/^[0-9]$/.test(raw)) return `must be an integer from 0 to ${MAX_PRECISION_MAX}`;
  const n = Number(raw);
  // Rejects, never rounds (decisions §8.13); decimal places are counted as written.
  const fail = ruleFailure(`has a maximum precision of ${n} (rule max_precision)`, { name: 'max_precision', kind: 'broken', bound: raw });
  return { check: (v) => ((v as DecimalValue).fractionDigits > n ? fail : null) };
};

const REGEX_TOO_COSTLY = ruleFailure(
  'is too costly to check against this regular expression (it would take more than the work one value may cost) (rule regex)',
  { name: 'regex', kind: 'too_costly' },
);

const regex: RuleCompiler = (_type, raw) => {
  const compiled = compileRe2(raw);
  if (!compiled.ok) {
    // decisions §8.11: as RE2 refuses a program over its budget, a pattern too costly to search the
    // largest value with is refused here, where it is defined.
    return compiled.tooLarge
      ? `is too large a regular expression: ${compiled.message}`
      : `is not a valid RE2 regular expression: ${compiled.message}`;
  }
  const re = compiled.pattern;
  const fail = ruleFailure('does not match the regular expression (rule regex)', { name: 'regex', kind: 'broken' });
  // Charged before the search, at the rate of the engine that runs it (compile-regex): a search
  // that would take the value past its budget is not started (decisions §8.11).
  const search = (text: string): boolean | undefined => (trySpend(re.unitsPerChar * text.length) ? re.test(text) : undefined);
  // Searches the value (decisions §8.11): authors anchor with ^...$ to match the whole value.
  return {
    bytes: re.bytes,
    check: (v) => {
      const verdict = search((v as TextValue).text);
      return verdict === undefined ? REGEX_TOO_COSTLY : verdict ? null : fail;
    },
    checkKnowing: (known) => {
      // Verdicts of the choices, taken as each is first written (not all at once here: the choices
      // may hold 300,000 characters, and each search is bounded only per value).
      const choices = new Set(known);
      const verdicts = new Map<string, boolean>();
      return (v) => {
        const text = (v as TextValue).text;
        let verdict = verdicts.get(text);
        if (verdict === undefined) {
          verdict = search(text);
          if (verdict === undefined) return REGEX_TOO_COSTLY;
          if (choices.has(text)) verdicts.set(text, verdict);
        }
        return verdict ? null : fail;
      };
    },
  };
};

function scale(rule: 'scale_min' | 'scale_max'): RuleCompiler {
  return (_type, raw) => {
    const parsed = parseDecimalText(raw);
    if (typeof parsed === 'string') return parsed;
    const d = parsed.value;
    const isMin = rule === 'scale_min';
    const outOfRange = ruleFailure(`has a ${isMin ? 'minimum' : 'maximum'} of ${raw} (rule ${rule})`, {
      name: rule,
      kind: 'broken',
      bound: raw,
    });
    // decisions §8.8: a rating's scale equals the definition's.
    const otherScale = ruleFailure(`must have ${rule} ${raw}, the definition's scale (rule ${rule})`, {
      name: rule,
      kind: 'scale',
      bound: raw,
    });
    return {
      scale: d,
      check: (v) => {
        const r = v as RatingValue;
        if (isMin ? r.value.lessThan(d) : r.value.greaterThan(d)) return outOfRange;
        return (isMin ? r.scaleMin : r.scaleMax).equals(d) ? null : otherScale;
      },
    };
  };
}

const schema: RuleCompiler = (_type, raw) => {
  const compiled = compileJsonSchema(raw);
  if (!compiled.ok) return compiled.message;
  const run = compiled.check;
  return {
    bytes: compiled.bytes,
    check: (v) => {
      const json = v as JsonValue;
      const problem = run(json.value, json.text);
      return problem === null
        ? null
        : ruleFailure(`does not conform to the schema: ${problem} (rule schema)`, { name: 'schema', kind: 'broken', reason: problem });
    },
  };
};

const DEFINITION_TYPES = ['MetaobjectDefinition'] as const;

const metaobjectDefinitionId: RuleCompiler = (_type, raw) => {
  const id = isResourceId(raw) ? raw : parseGid(raw, DEFINITION_TYPES)?.id;
  if (id === undefined) return 'must be a numeric id or a global id gid://platform/MetaobjectDefinition/<id>';
  // Existence is I/O: the caller checks it (see the definition's references).
  return { check: null, metaobjectDefinitionId: id };
};

export const RULE_COMPILERS: Readonly<Record<RuleName, RuleCompiler>> = {
  choices,
  allowed_domains: allowedDomains,
  file_type_options: fileTypeOptions,
  'list.min': listCount,
  'list.max': listCount,
  min: bound('min'),
  max: bound('max'),
  max_precision: maxPrecision,
  regex,
  scale_min: scale('scale_min'),
  scale_max: scale('scale_max'),
  schema,
  metaobject_definition_id: metaobjectDefinitionId,
};
