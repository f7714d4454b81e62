import { parseStoredInstant } from '../time/parse-instant';
import { checkFeedbackMessages, type FeedbackIssue } from './check-feedback-messages';
import { normalizeFeedbackState, type FeedbackState } from './normalize-feedback-state';

/** A request's `resource_feedback` once its shape is known (the contract checks types and fields). */
export interface FeedbackInput {
  readonly state: string;
  readonly feedback_generated_at: string;
  readonly resource_updated_at?: string | null;
  readonly messages?: readonly string[] | null;
}

/** What is stored: the state in its enumerated spelling, instants, and the messages kept. */
export interface ValidFeedback {
  readonly state: FeedbackState;
  readonly generatedAt: Date;
  readonly resourceUpdatedAt: Date | null;
  /** decisions §9.3: kept only for `require_actions`; `success` stores `[]`. */
  readonly messages: string[];
}

export type FeedbackResult = { ok: true; value: ValidFeedback } | { ok: false; issues: FeedbackIssue[] };

/** A feedback time: within the instants the platform stores (parseStoredInstant). */
function feedbackTime(raw: string, field: string, issues: FeedbackIssue[]): Date | null {
  const parsed = parseStoredInstant(raw);
  if (!parsed.ok) {
    issues.push({ field, message: parsed.message });
    return null;
  }
  return parsed.value;
}

/**
 * decisions §9.2-§9.3, §3.3: the rules of one incoming feedback, every problem at once, each named
 * by its field. `prefix` is put before field names (`resource_feedback.`).
 * Messages are checked whatever the state: a body is valid or not as a whole, even where a part of
 * it is then dropped (`success` keeps no messages).
 */
export function validateFeedback(input: FeedbackInput, prefix = ''): FeedbackResult {
  const issues: FeedbackIssue[] = [];
  const state = normalizeFeedbackState(input.state);
  if (!state.ok) issues.push({ field: `${prefix}state`, message: state.message });
  const generatedAt = feedbackTime(input.feedback_generated_at, `${prefix}feedback_generated_at`, issues);
  const resourceUpdatedAt =
    input.resource_updated_at === undefined || input.resource_updated_at === null
      ? null
      : feedbackTime(input.resource_updated_at, `${prefix}resource_updated_at`, issues);
  const messages = input.messages ?? [];
  issues.push(...checkFeedbackMessages(messages, `${prefix}messages`));
  if (issues.length > 0 || !state.ok || generatedAt === null) return { ok: false, issues };
  return {
    ok: true,
    value: {
      state: state.value,
      generatedAt,
      resourceUpdatedAt,
      messages: state.value === 'require_actions' ? [...messages] : [],
    },
  };
}
