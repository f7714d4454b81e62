import type { Issue } from '@platform/domain';
import type { FieldErrors } from './parts';

/**
 * The API's problems (IssuesError), each under the form field it is shown beside: `fieldOf` maps an
 * issue's field (`key`, `validations[2].value`, `d12.value[1]`) to a field of the page, or '' for
 * the whole form (every problem is shown somewhere; the message is the API's, word for word).
 */
export function issuesByField(issues: readonly Issue[], fieldOf: (field: string) => string): FieldErrors {
  const errors = new Map<string, string[]>();
  for (const issue of issues) {
    const field = fieldOf(issue.field);
    const list = errors.get(field) ?? [];
    list.push(issue.message);
    errors.set(field, list);
  }
  return errors;
}
