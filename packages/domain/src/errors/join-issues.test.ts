import { describe, it, expect } from 'vitest';
import { joinIssues } from './join-issues';

describe('joinIssues', () => {
  it('puts the field first and joins issues with "; "', () => {
    expect(
      joinIssues([
        { field: 'key', message: 'is too short (minimum is 3 characters)' },
        { field: 'name', message: "can't be blank" },
      ]),
    ).toBe("key: is too short (minimum is 3 characters); name: can't be blank");
  });

  it('does not prefix a message that already names its field', () => {
    expect(joinIssues([{ field: 'value[1]', message: 'value[1]: does not exist in provided choices (rule choices)' }])).toBe(
      'value[1]: does not exist in provided choices (rule choices)',
    );
  });

  it('returns an empty string for no issues', () => {
    expect(joinIssues([])).toBe('');
  });
});
