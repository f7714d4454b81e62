import type { ScalarValue } from './define-values';
import type { RuleProblem } from './format-issues';

/** Why a value breaks a rule: `suffix` extends the field (`.url` of a link), `text` follows the colon. */
export interface RuleFailure {
  readonly suffix: string;
  readonly text: string;
  /** The field and message on a value that is not a list (`value.url`), made once. */
  readonly field: string;
  readonly message: string;
  /** The rule and its limit, as data (Issue.rule). */
  readonly problem: RuleProblem;
}

/**
 * One compiled rule applied to one value (or one non-empty list element). Failures are built at
 * compile time where possible, so a failing check allocates nothing.
 */
export type ElementCheck = (value: ScalarValue) => RuleFailure | null;

export function ruleFailure(text: string, problem: RuleProblem, suffix = ''): RuleFailure {
  const field = `value${suffix}`;
  return Object.freeze({ suffix, text, field, message: `${field}: ${text}`, problem: Object.freeze(problem) });
}
