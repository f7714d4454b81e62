import { parseIsoInstant } from '../time/parse-instant';
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

/**
 * Times the platform stores and renders in every store's zone: from the Unix epoch to a day before
 * the year 10000 (a later instant would need a five-digit year in a zone east of UTC, and
 * PostgreSQL has no year 0). No feedback is generated outside them.
 */
const EARLIEST_MS = Date.UTC(1970, 0, 1);
const LATEST_MS = Date.UTC(9999, 11, 30, 23, 59, 59, 999);
const RANGE_MESSAGE = 'must be between 1970-01-01T00:00:00Z and 9999-12-30T23:59:59Z';

function feedbackTime(raw: string, field: string, issues: FeedbackIssue[]): Date | null {
  const parsed = parseIsoInstant(raw);
  if (!parsed.ok) {
    issues.push({ field, message: parsed.message });
    return null;
  }
  const ms = parsed.value.getTime();
  if (ms < EARLIEST_MS || ms > LATEST_MS) {
    issues.push({ field, message: RANGE_MESSAGE });
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
