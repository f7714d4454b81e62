/** decisions §9.3. */
export const MAX_FEEDBACK_MESSAGES = 50;
/** decisions §9.3; characters are Unicode code points, as every text length of the platform (decisions §8.13). */
export const MAX_FEEDBACK_MESSAGE_LENGTH = 1000;

export interface FeedbackIssue {
  readonly field: string;
  readonly message: string;
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * decisions §9.3: at most 50 messages of at most 1,000 characters each. A blank message (empty or
 * only white space) tells the merchant nothing, so it is refused too. Issues name the entry
 * (`messages[3]`); a list over the count limit is reported once, without checking each entry.
 */
export function checkFeedbackMessages(messages: readonly string[], field = 'messages'): FeedbackIssue[] {
  if (messages.length > MAX_FEEDBACK_MESSAGES) {
    return [{ field, message: `must hold at most ${MAX_FEEDBACK_MESSAGES} messages (got ${messages.length})` }];
  }
  const issues: FeedbackIssue[] = [];
  messages.forEach((text, i) => {
    if (text.trim() === '') issues.push({ field: `${field}[${i}]`, message: "can't be blank" });
    else if (text.length > MAX_FEEDBACK_MESSAGE_LENGTH && codePoints(text) > MAX_FEEDBACK_MESSAGE_LENGTH) {
      issues.push({ field: `${field}[${i}]`, message: `is too long (maximum is ${MAX_FEEDBACK_MESSAGE_LENGTH} characters)` });
    }
  });
  return issues;
}
