import { compareBounds } from './compile-bounds';
import { RULE_COMPILERS, type CompiledRule } from './compile-rule-values';
import type { ElementCheck } from './define-checks';
import { RULE_VALUE_MAX_LENGTH, isRuleName, ruleAppliesTo, type RuleName } from './define-rules';
import { checkedTypeOf, codePointLength, type MetafieldType } from './define-types';
import { makeIssue, type Issue } from './format-issues';

// A definition's `validations` array: shape, names, applicability, each value's format, and the
// constraints between rules (spec "Rules on the array").

/** A reference the engine cannot resolve (it needs the store's data); the caller checks it exists. */
export interface DefinitionReference {
  /** Where to report a missing target: `validations[2].value`. */
  readonly field: string;
  readonly kind: 'metaobject_definition';
  /** The numeric id, whichever spelling the rule used. */
  readonly id: string;
}

export interface NormalizedRule {
  readonly name: RuleName;
  readonly value: string;
}

export interface CompiledRuleSet {
  readonly type: MetafieldType;
  readonly rules: readonly NormalizedRule[];
  readonly listMin: number | null;
  readonly listMax: number | null;
  /** Every rule but list.min / list.max, in the definition's order, for each value or non-empty element. */
  readonly checks: readonly ElementCheck[];
  readonly metaobjectDefinitionId: string | null;
  readonly references: readonly DefinitionReference[];
  /** Memory the compiled rules hold, estimated in bytes (their texts, patterns and schemas). */
  readonly bytes: number;
}

/**
 * Memory one definition's compiled rules may hold, estimated (compile-regex, compile-schema): its
 * compiled validator is cached per definition (the API's cache is bounded by the sum of these), so
 * one definition cannot take a large share of it (issue 8: a schema of 1,400 patternProperties held
 * 15 MB, and 50 such definitions 1.5 GB).
 */
export const DEFINITION_MAX_BYTES = 8 * 1024 * 1024;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textProblem(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return "can't be blank";
  return typeof value === 'string' ? null : 'must be a string';
}

/**
 * Checks `validations` against `type` (null when the type itself is unknown: then only what does not
 * depend on it is checked). Pushes every problem found; returns the compiled set when there is none.
 */
export function checkRuleSet(type: MetafieldType | null, validations: unknown, issues: Issue[]): CompiledRuleSet | undefined {
  const before = issues.length;
  const list = validations === undefined || validations === null ? [] : validations;
  if (!Array.isArray(list)) {
    issues.push(makeIssue('validations', 'must be an array'));
    return undefined;
  }
  const elementType = type === null ? null : checkedTypeOf(type);
  const compiled = new Map<RuleName, { rule: CompiledRule; index: number }>();
  const seen = new Set<RuleName>();
  const present = new Set<RuleName>();
  const rules: NormalizedRule[] = [];
  let bytes = 0;
  list.forEach((entry: unknown, i) => {
    const at = `validations[${i}]`;
    if (!isRecord(entry)) {
      issues.push(makeIssue(at, 'must be an object with name and value'));
      return;
    }
    const { name, value } = entry;
    const nameProblem = textProblem(name);
    if (nameProblem !== null) issues.push(makeIssue(`${at}.name`, nameProblem));
    const valueProblem = textProblem(value);
    if (valueProblem !== null) issues.push(makeIssue(`${at}.value`, valueProblem));
    else if (codePointLength(value as string) > RULE_VALUE_MAX_LENGTH) {
      issues.push(makeIssue(`${at}.value`, `is too long (maximum is ${RULE_VALUE_MAX_LENGTH} characters)`));
      return;
    }
    if (nameProblem !== null) return;
    if (!isRuleName(name)) {
      issues.push(makeIssue(`${at}.name`, `'${name as string}' is not a supported rule`));
      return;
    }
    if (seen.has(name)) {
      issues.push(makeIssue(`${at}.name`, `'${name}' appears more than once (each rule at most once per definition)`));
      return;
    }
    seen.add(name);
    if (type !== null && !ruleAppliesTo(name, type)) {
      issues.push(makeIssue(`${at}.name`, `'${name}' does not apply to type ${type}`));
      return;
    }
    present.add(name);
    if (valueProblem !== null || elementType === null) return;
    const result = RULE_COMPILERS[name](elementType, value as string);
    if (typeof result === 'string') {
      issues.push(makeIssue(`${at}.value`, `${result} (rule ${name})`, { name, kind: 'value', reason: result }));
      return;
    }
    compiled.set(name, { rule: result, index: i });
    // The rule's text (kept, and read into sets or bounds) and what its compiler reports holding.
    bytes += 2 * (value as string).length + (result.bytes ?? 0);
    rules.push({ name, value: value as string });
  });
  checkConstraints(compiled, present, issues);
  if (bytes > DEFINITION_MAX_BYTES) {
    const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MB`;
    issues.push(
      makeIssue(
        'validations',
        `are too costly to compile: they would hold about ${mb(bytes)} in memory (at most ${mb(DEFINITION_MAX_BYTES)} per definition)`,
      ),
    );
  }
  if (type === null || issues.length !== before) return undefined;
  const checks: ElementCheck[] = [];
  // With choices, every value that passes is one of at most 128 strings: each one's regex verdict is
  // kept once taken, so those values reach RE2 once (the verdicts are the same either way).
  const choices = compiled.get('choices')?.rule.choices;
  for (const { rule } of compiled.values()) {
    if (rule.check === null) continue;
    checks.push(choices !== undefined && rule.checkKnowing !== undefined ? rule.checkKnowing(choices) : rule.check);
  }
  const reference = compiled.get('metaobject_definition_id');
  const id = reference?.rule.metaobjectDefinitionId ?? null;
  return {
    type,
    rules,
    listMin: compiled.get('list.min')?.rule.count ?? null,
    listMax: compiled.get('list.max')?.rule.count ?? null,
    checks,
    metaobjectDefinitionId: id,
    bytes,
    references:
      reference === undefined || id === null ? [] : [{ field: `validations[${reference.index}].value`, kind: 'metaobject_definition', id }],
  };
}

function checkConstraints(compiled: ReadonlyMap<RuleName, { rule: CompiledRule }>, present: ReadonlySet<RuleName>, issues: Issue[]): void {
  const min = compiled.get('min')?.rule.bound;
  const max = compiled.get('max')?.rule.bound;
  if (min !== undefined && max !== undefined && compareBounds(min, max) > 0) {
    issues.push(makeIssue('validations', 'min must be less than or equal to max', { name: 'max', kind: 'order' }));
  }
  const listMin = compiled.get('list.min')?.rule.count;
  const listMax = compiled.get('list.max')?.rule.count;
  if (listMin !== undefined && listMax !== undefined && listMin > listMax) {
    issues.push(makeIssue('validations', 'list.min must be less than or equal to list.max', { name: 'list.max', kind: 'order' }));
  }
  if (present.has('scale_min') !== present.has('scale_max')) {
    const [has, lacks] = present.has('scale_min') ? (['scale_min', 'scale_max'] as const) : (['scale_max', 'scale_min'] as const);
    issues.push(makeIssue('validations', `${has} must be configured together with ${lacks}`, { name: lacks, kind: 'pair' }));
  }
  const scaleMin = compiled.get('scale_min')?.rule.scale;
  const scaleMax = compiled.get('scale_max')?.rule.scale;
  if (scaleMin !== undefined && scaleMax !== undefined && scaleMin.greaterThan(scaleMax)) {
    issues.push(makeIssue('validations', 'scale_min must be less than or equal to scale_max', { name: 'scale_max', kind: 'order' }));
  }
}
