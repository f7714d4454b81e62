import { describe, expect, it } from 'vitest';
import { isDomainError } from '../errors/define-errors';
import { InvalidDefinitionError, IssuesError, formatIssues, makeIssue } from './format-issues';

describe('issues (decisions §4)', () => {
  it('put the field name first', () => {
    expect(makeIssue('key', 'is too short (minimum is 3 characters)')).toEqual({
      field: 'key',
      message: 'key: is too short (minimum is 3 characters)',
    });
  });
  it('join with "; " into one error message', () => {
    expect(formatIssues([makeIssue('key', 'is invalid'), makeIssue('value[1]', "can't be blank")])).toBe(
      "key: is invalid; value[1]: can't be blank",
    );
    expect(formatIssues([])).toBe('');
  });
  it('carry through InvalidDefinitionError', () => {
    const error = new InvalidDefinitionError([makeIssue('type', 'x')]);
    expect(error.name).toBe('InvalidDefinitionError');
    expect(error.message).toBe('invalid metafield definition: type: x');
  });
});

describe('IssuesError', () => {
  it('answers the joined message of decisions §4 as a 422, and keeps each problem for a form to show beside its field', () => {
    const issues = [makeIssue('key', 'is too short (minimum is 3 characters)'), makeIssue('validations[0].value', "can't be blank")];
    const error = new IssuesError(issues);
    expect(error.message).toBe(formatIssues(issues));
    expect(error.message).toBe("key: is too short (minimum is 3 characters); validations[0].value: can't be blank");
    expect([error.code, error.status, isDomainError(error)]).toEqual(['VALIDATION_FAILED', 422, true]);
    expect(error.issues.map((i) => i.field)).toEqual(['key', 'validations[0].value']);
  });
});
