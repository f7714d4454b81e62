import { describe, expect, it } from 'vitest';
import { checkFeedbackMessages, MAX_FEEDBACK_MESSAGE_LENGTH, MAX_FEEDBACK_MESSAGES } from './check-feedback-messages';

describe(checkFeedbackMessages.name, () => {
  it('accepts no messages, and up to 50 of up to 1,000 characters (decisions §9.3)', () => {
    expect(checkFeedbackMessages([])).toEqual([]);
    expect(checkFeedbackMessages(Array(MAX_FEEDBACK_MESSAGES).fill('x'.repeat(MAX_FEEDBACK_MESSAGE_LENGTH)))).toEqual([]);
  });

  it('refuses a 51st message once, for the whole list', () => {
    expect(checkFeedbackMessages(Array(51).fill('x'), 'resource_feedback.messages')).toEqual([
      { field: 'resource_feedback.messages', message: 'must hold at most 50 messages (got 51)' },
    ]);
  });

  it('refuses a message of 1,001 characters, naming its index', () => {
    expect(checkFeedbackMessages(['ok', 'x'.repeat(1001)])).toEqual([
      { field: 'messages[1]', message: 'is too long (maximum is 1000 characters)' },
    ]);
  });

  it('counts characters as code points: 1,000 emoji (2,000 UTF-16 units) fit', () => {
    expect(checkFeedbackMessages(['😀'.repeat(1000)])).toEqual([]);
    expect(checkFeedbackMessages(['😀'.repeat(1001)])).toHaveLength(1);
  });

  it('refuses blank messages', () => {
    expect(checkFeedbackMessages(['', ' \n\t', 'fine'])).toEqual([
      { field: 'messages[0]', message: "can't be blank" },
      { field: 'messages[1]', message: "can't be blank" },
    ]);
  });
});
