/** The spec's enumerated values of a product resource feedback's state. */
export const FEEDBACK_STATES = ['require_actions', 'success'] as const;
export type FeedbackState = (typeof FEEDBACK_STATES)[number];

/**
 * decisions §9.2: the spec's sample bodies spell the state `requires_action`; that spelling is
 * accepted and stored as `require_actions`. Nothing else is rewritten (no case folding, no trimming):
 * an app that sends `Success` has a bug it should hear about.
 */
const ALIASES: Readonly<Record<string, FeedbackState>> = { requires_action: 'require_actions' };

export type StateResult = { ok: true; value: FeedbackState } | { ok: false; message: string };

export const FEEDBACK_STATE_MESSAGE = `must be one of ${FEEDBACK_STATES.join(', ')} (requires_action is accepted as require_actions)`;

/** The stored state a request's `state` names; the message has no field name. */
export function normalizeFeedbackState(raw: string): StateResult {
  if ((FEEDBACK_STATES as readonly string[]).includes(raw)) return { ok: true, value: raw as FeedbackState };
  const alias = Object.prototype.hasOwnProperty.call(ALIASES, raw) ? ALIASES[raw] : undefined;
  return alias ? { ok: true, value: alias } : { ok: false, message: FEEDBACK_STATE_MESSAGE };
}
