import { DomainError } from '../errors/define-errors';
import type { RuleName } from './define-rules';

/**
 * One problem found in a definition or a value. `message` is the whole Rails-like line, field name
 * first (`key: is too short (minimum is 3 characters)`), so an error body is the messages joined
 * with `; ` (decisions §4).
 */
export interface Issue {
  readonly field: string;
  readonly message: string;
  /**
   * What the problem has to do with a validation rule, as data: callers that word problems their
   * own way (the merchant pages) read this, never `message`, which stays the API's.
   */
  readonly rule?: RuleProblem;
}

/** A problem about one validation rule (`name`), by kind. */
export type RuleProblem =
  /**
   * A value breaks the rule. `bound` is the rule's limit as the merchant reads it (min, max,
   * list.min, list.max, max_precision, scale_min, scale_max: as written, measures as `5 kg`;
   * file_type_options: `Image`, `Video` or `Image or Video`); `reason` what a schema found.
   */
  | { readonly name: RuleName; readonly kind: 'broken'; readonly bound?: string; readonly reason?: string }
  /** A rating written on another scale than the definition's `bound` (its scale_min or scale_max). */
  | { readonly name: RuleName; readonly kind: 'scale'; readonly bound: string }
  /** A value too costly to check against the rule (decisions §8.11). */
  | { readonly name: RuleName; readonly kind: 'too_costly' }
  /** A definition's rule value refused: `reason` is why, without the field or the rule's name. */
  | { readonly name: RuleName; readonly kind: 'value'; readonly reason: string }
  /** Two rules out of order (min above max): `name` is the upper one (max, list.max, scale_max). */
  | { readonly name: RuleName; readonly kind: 'order' }
  /** scale_min or scale_max without the other: `name` is the missing one. */
  | { readonly name: RuleName; readonly kind: 'pair' };

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: Issue[] };

export function makeIssue(field: string, text: string, rule?: RuleProblem): Issue {
  return withRule({ field, message: `${field}: ${text}` }, rule);
}

/**
 * An issue with its rule attached, as a property that is not enumerable: the issue's data stays
 * `field` and `message` for everything that compares, copies or serialises issues (equality in
 * tests, JSON, logs), and readers that want the rule ask for `issue.rule` by name. A copy made by
 * spreading loses it: copy with `withRule(copy, issue.rule)`.
 */
export function withRule<T extends Issue>(issue: T, rule: RuleProblem | undefined): T {
  if (rule !== undefined) Object.defineProperty(issue, 'rule', { value: rule, enumerable: false });
  return issue;
}

/** The `{"errors": "..."}` text of decisions §4: every message, joined with `; `. */
export function formatIssues(issues: readonly Issue[]): string {
  return issues.map((i) => i.message).join('; ');
}

/**
 * A refusal of a definition or a value with its problems kept: the API answers the joined message
 * (decisions §4), the merchant pages show each problem beside its field.
 */
export class IssuesError extends DomainError {
  readonly issues: readonly Issue[];
  constructor(issues: readonly Issue[]) {
    super('VALIDATION_FAILED', formatIssues(issues));
    this.issues = issues;
  }
}

/** Raised by `compileValidator` when handed a definition that `validateDefinition` would reject. */
export class InvalidDefinitionError extends Error {
  constructor(readonly issues: readonly Issue[]) {
    super(`invalid metafield definition: ${formatIssues(issues)}`);
    this.name = 'InvalidDefinitionError';
  }
}
