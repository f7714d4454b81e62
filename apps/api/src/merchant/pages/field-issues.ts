import type { Issue } from '@platform/domain';
import type { FieldErrors } from './parts';
import { asSentence, ownText } from './words';

/**
 * The API's problems (IssuesError), each under the form field it is shown beside: `fieldOf` maps an
 * issue to a field of the page, or '' for the whole form (every problem is shown somewhere). Beside
 * a field a problem is a sentence (`sentenceOf`: by default the API's phrase without its field,
 * `Is too short (minimum is 3 characters).`); in the whole form's list it is the API's message, which
 * names its field (there is no field beside it to tell).
 */
export function issuesByField(
  issues: readonly Issue[],
  fieldOf: (issue: Issue) => string,
  sentenceOf: (issue: Issue) => string = (issue) => asSentence(ownText(issue)),
): FieldErrors {
  const errors = new Map<string, string[]>();
  for (const issue of issues) {
    const field = fieldOf(issue);
    const list = errors.get(field) ?? [];
    list.push(field === '' ? issue.message : sentenceOf(issue));
    errors.set(field, list);
  }
  return errors;
}
