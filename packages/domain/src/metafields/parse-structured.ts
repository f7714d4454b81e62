import { isUnitOf, unitsOf } from './convert-units';
import type { Decimal } from 'decimal.js';
import { type DecimalValue, type LinkValue, type MeasureDimension, type MeasureValue, type RatingValue } from './define-values';
import { makeIssue, type Issue } from './format-issues';
import { JsonNumber, isJsonObject, jsonKeys, type JsonNode, type JsonObjectNode } from './parse-json';
import { parseDecimalText } from './parse-scalars';
import { parseUrlText } from './parse-url';

// JSON-object values of decisions §8.8: weight/volume/dimension `{"value":n,"unit":u}`, rating
// `{"value":"4.5","scale_min":"1","scale_max":"5"}`, link `{"text":"...","url":"..."}`. Exactly
// these keys; anything else is refused rather than dropped.

function hasExactKeys(node: JsonObjectNode, keys: readonly string[]): boolean {
  if (jsonKeys(node).length !== keys.length) return false;
  for (const key of keys) if (!Object.prototype.hasOwnProperty.call(node, key)) return false;
  return true;
}

const MEASURE_KEYS = ['value', 'unit'] as const;
const LINK_KEYS = ['text', 'url'] as const;

export function measureShape(dimension: MeasureDimension): string {
  return `must be a JSON object with keys value (a number) and unit (${unitsOf(dimension).join(', ')})`;
}

/** A measure from its JSON object; pushes issues and returns undefined when it is not one. */
export function parseMeasureNode(
  node: JsonNode | undefined,
  dimension: MeasureDimension,
  field: string,
  issues: Issue[],
): MeasureValue | undefined {
  if (!isJsonObject(node) || !hasExactKeys(node, MEASURE_KEYS)) {
    issues.push(makeIssue(field, measureShape(dimension)));
    return undefined;
  }
  const before = issues.length;
  const value = node['value'];
  const unit = node['unit'];
  let parsed;
  if (!(value instanceof JsonNumber)) issues.push(makeIssue(`${field}.value`, 'must be a JSON number'));
  else {
    parsed = parseDecimalText(value.text);
    if (typeof parsed === 'string') issues.push(makeIssue(`${field}.value`, parsed));
  }
  if (typeof unit !== 'string' || !isUnitOf(dimension, unit)) {
    issues.push(makeIssue(`${field}.unit`, `must be one of ${unitsOf(dimension).join(', ')}`));
  }
  if (issues.length !== before || parsed === undefined || typeof parsed === 'string' || typeof unit !== 'string') return undefined;
  return new ParsedMeasure(dimension, parsed, unit);
}

/** A measure of `unit` (one of the dimension's) and a decimal already read. */
export function measureValue(dimension: MeasureDimension, decimal: DecimalValue, unit: string): MeasureValue {
  return new ParsedMeasure(dimension, decimal, unit);
}

// Like its decimal, the exact value is built on first use (bounds compare doubles first).
class ParsedMeasure implements MeasureValue {
  readonly kind = 'measure';
  readonly valueText: string;
  readonly #decimal: DecimalValue;

  constructor(
    readonly dimension: MeasureDimension,
    decimal: DecimalValue,
    readonly unit: string,
  ) {
    this.valueText = decimal.text;
    this.#decimal = decimal;
  }

  get value(): Decimal {
    return this.#decimal.value;
  }

  get approximate(): number {
    return this.#decimal.approximate;
  }

  toJSON(): object {
    return { kind: this.kind, dimension: this.dimension, valueText: this.valueText, value: this.value, unit: this.unit };
  }
}

const RATING_KEYS = ['value', 'scale_min', 'scale_max'] as const;
const RATING_SHAPE = 'must be a JSON object with keys value, scale_min and scale_max (decimal strings)';

/** A rating whose value lies within its own scale (the definition's scale is a rule, not checked here). */
export function parseRatingNode(node: JsonNode | undefined, field: string, issues: Issue[]): RatingValue | undefined {
  if (!isJsonObject(node) || !hasExactKeys(node, RATING_KEYS)) {
    issues.push(makeIssue(field, RATING_SHAPE));
    return undefined;
  }
  const before = issues.length;
  const numbers = RATING_KEYS.map((key) => {
    const raw = node[key];
    if (typeof raw !== 'string') {
      issues.push(makeIssue(`${field}.${key}`, 'must be a decimal string'));
      return undefined;
    }
    const parsed = parseDecimalText(raw);
    if (typeof parsed === 'string') {
      issues.push(makeIssue(`${field}.${key}`, parsed));
      return undefined;
    }
    return parsed.value;
  });
  const [value, scaleMin, scaleMax] = numbers;
  if (issues.length !== before || value === undefined || scaleMin === undefined || scaleMax === undefined) return undefined;
  if (scaleMin.greaterThan(scaleMax)) {
    issues.push(makeIssue(`${field}.scale_min`, 'must be less than or equal to scale_max'));
    return undefined;
  }
  // decisions §8.13's familiar form, naming the bound: the rating's own scale, which equals the
  // definition's scale rules where it has them (§8.8).
  if (value.lessThan(scaleMin)) {
    issues.push(
      makeIssue(field, `has a minimum of ${node.scale_min as string} (rule scale_min)`, {
        name: 'scale_min',
        kind: 'broken',
        bound: node.scale_min as string,
      }),
    );
    return undefined;
  }
  if (value.greaterThan(scaleMax)) {
    issues.push(
      makeIssue(field, `has a maximum of ${node.scale_max as string} (rule scale_max)`, {
        name: 'scale_max',
        kind: 'broken',
        bound: node.scale_max as string,
      }),
    );
    return undefined;
  }
  return { kind: 'rating', value, scaleMin, scaleMax };
}

const LINK_SHAPE = 'must be a JSON object with keys text and url (strings)';

export function parseLinkNode(node: JsonNode | undefined, field: string, issues: Issue[]): LinkValue | undefined {
  if (!isJsonObject(node) || !hasExactKeys(node, LINK_KEYS)) {
    issues.push(makeIssue(field, LINK_SHAPE));
    return undefined;
  }
  const text = node['text'];
  const url = node['url'];
  const before = issues.length;
  if (typeof text !== 'string') issues.push(makeIssue(`${field}.text`, 'must be a string'));
  let parsedUrl;
  if (typeof url !== 'string') issues.push(makeIssue(`${field}.url`, 'must be a string'));
  else {
    parsedUrl = parseUrlText(url);
    if (typeof parsedUrl === 'string') issues.push(makeIssue(`${field}.url`, parsedUrl));
  }
  if (issues.length !== before || typeof text !== 'string' || parsedUrl === undefined || typeof parsedUrl === 'string') return undefined;
  return { kind: 'link', text, url: parsedUrl };
}
