import { describe, expect, it } from 'vitest';
import { FEEDBACK_STATES, normalizeFeedbackState } from './normalize-feedback-state';

describe(normalizeFeedbackState.name, () => {
  it('accepts the two enumerated values as they are (decisions §9.2)', () => {
    for (const state of FEEDBACK_STATES) expect(normalizeFeedbackState(state)).toEqual({ ok: true, value: state });
  });

  it("stores the spec samples' spelling requires_action as require_actions", () => {
    expect(normalizeFeedbackState('requires_action')).toEqual({ ok: true, value: 'require_actions' });
  });

  it('refuses anything else, naming the allowed values', () => {
    for (const state of [
      '',
      'Success',
      'SUCCESS',
      ' success',
      'require_action',
      'requires_actions',
      'toString',
      '__proto__',
      'constructor',
    ]) {
      const r = normalizeFeedbackState(state);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.message).toBe('must be one of require_actions, success (requires_action is accepted as require_actions)');
    }
  });
});
