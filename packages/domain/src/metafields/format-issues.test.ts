import { describe, expect, it } from 'vitest';
import { InvalidDefinitionError, formatIssues, makeIssue } from './format-issues';

describe('issues (decisions §4)', () => {
  it('put the field name first', () => {
    expect(makeIssue('key', 'is too short (minimum is 3 characters)')).toEqual({ field: 'key', message: 'key: is too short (minimum is 3 characters)' });
  });
  it('join with "; " into one error message', () => {
    expect(formatIssues([makeIssue('key', 'is invalid'), makeIssue('value[1]', "can't be blank")])).toBe("key: is invalid; value[1]: can't be blank");
    expect(formatIssues([])).toBe('');
  });
  it('carry through InvalidDefinitionError', () => {
    const error = new InvalidDefinitionError([makeIssue('type', 'x')]);
    expect(error.name).toBe('InvalidDefinitionError');
    expect(error.message).toBe('invalid metafield definition: type: x');
  });
});
