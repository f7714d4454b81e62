import { DomainError } from '../errors/define-errors';

/**
 * One problem found in a definition or a value. `message` is the whole Rails-like line, field name
 * first (`key: is too short (minimum is 3 characters)`), so an error body is the messages joined
 * with `; ` (decisions §4).
 */
export interface Issue {
  readonly field: string;
  readonly message: string;
}

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: Issue[] };

export function makeIssue(field: string, text: string): Issue {
  return { field, message: `${field}: ${text}` };
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
