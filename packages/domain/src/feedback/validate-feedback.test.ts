import { describe, expect, it } from 'vitest';
import { validateFeedback } from './validate-feedback';

const base = { state: 'require_actions', feedback_generated_at: '2026-11-22T12:05:01+08:00' };

describe(validateFeedback.name, () => {
  it('returns the stored form: enumerated state, instants, messages', () => {
    const r = validateFeedback({
      ...base,
      state: 'requires_action',
      resource_updated_at: '2026-11-22T04:00:00Z',
      messages: ['Add a description'],
    });
    expect(r).toEqual({
      ok: true,
      value: {
        state: 'require_actions',
        generatedAt: new Date('2026-11-22T04:05:01Z'),
        resourceUpdatedAt: new Date('2026-11-22T04:00:00Z'),
        messages: ['Add a description'],
      },
    });
  });

  it('keeps messages only for require_actions: success stores [] (decisions §9.3)', () => {
    const r = validateFeedback({ ...base, state: 'success', messages: ['ignored'] });
    expect(r.ok && r.value.messages).toEqual([]);
  });

  it('treats a missing or null resource_updated_at and messages as not sent', () => {
    for (const extra of [{}, { resource_updated_at: null, messages: null }]) {
      const r = validateFeedback({ ...base, ...extra });
      expect(r.ok && r.value).toEqual({
        state: 'require_actions',
        generatedAt: new Date('2026-11-22T04:05:01Z'),
        resourceUpdatedAt: null,
        messages: [],
      });
    }
  });

  it('refuses times without an offset or Z, and reports every problem at once, field first (decisions §3.3, §4)', () => {
    const r = validateFeedback(
      { state: 'done', feedback_generated_at: '2026-11-22T12:05:01', resource_updated_at: '2026-11-22', messages: Array(51).fill('x') },
      'resource_feedback.',
    );
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.issues.map((i) => i.field)).toEqual([
        'resource_feedback.state',
        'resource_feedback.feedback_generated_at',
        'resource_feedback.resource_updated_at',
        'resource_feedback.messages',
      ]);
      expect(r.issues[1]?.message).toMatch(/with an offset or Z/);
    }
  });

  it('refuses impossible dates and times outside what every store zone can render', () => {
    for (const time of ['2026-02-30T00:00:00Z', '0000-01-01T00:00:00Z', '1969-12-31T23:59:59Z', '9999-12-31T12:00:00Z', '']) {
      expect(validateFeedback({ ...base, feedback_generated_at: time }).ok).toBe(false);
    }
    expect(validateFeedback({ ...base, feedback_generated_at: '1970-01-01T00:00:00Z' }).ok).toBe(true);
    expect(validateFeedback({ ...base, feedback_generated_at: '9999-12-30T23:59:59Z' }).ok).toBe(true);
  });

  it('checks messages whatever the state', () => {
    expect(validateFeedback({ ...base, state: 'success', messages: ['x'.repeat(1001)] }).ok).toBe(false);
  });
});
