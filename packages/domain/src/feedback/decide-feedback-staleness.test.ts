import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStaleFeedback, type FeedbackTimes } from './decide-feedback-staleness';

const at = (s: string) => new Date(s);
const times = (generated: string, resource: string | null = null): FeedbackTimes => ({
  generatedAt: at(generated),
  resourceUpdatedAt: resource === null ? null : at(resource),
});

describe(isStaleFeedback.name, () => {
  it('nothing stored: never stale (decisions §9.4)', () => {
    expect(isStaleFeedback(times('2020-01-01T00:00:00Z'), null)).toBe(false);
  });

  it('an earlier feedback_generated_at is stale', () => {
    expect(isStaleFeedback(times('2026-01-01T00:00:00Z'), times('2026-01-01T00:00:01Z'))).toBe(true);
    expect(isStaleFeedback(times('2026-01-01T00:00:00.999Z'), times('2026-01-01T00:00:01Z'))).toBe(true);
  });

  it('an earlier resource_updated_at is stale even when generated later', () => {
    const stored = times('2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
    expect(isStaleFeedback(times('2026-01-02T00:00:00Z', '2025-12-31T00:00:00Z'), stored)).toBe(true);
  });

  it('equal times are not stale: a re-sent feedback replaces the stored one', () => {
    const stored = times('2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
    expect(isStaleFeedback(times('2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'), stored)).toBe(false);
  });

  it('a resource_updated_at missing on either side skips that half', () => {
    expect(isStaleFeedback(times('2026-01-02T00:00:00Z'), times('2026-01-01T00:00:00Z', '2030-01-01T00:00:00Z'))).toBe(false);
    expect(isStaleFeedback(times('2026-01-02T00:00:00Z', '2000-01-01T00:00:00Z'), times('2026-01-01T00:00:00Z'))).toBe(false);
    expect(isStaleFeedback(times('2025-01-02T00:00:00Z'), times('2026-01-01T00:00:00Z', '2000-01-01T00:00:00Z'))).toBe(true);
  });
});

// Property-based: "accepted" (not stale) is the product order on the pair of times, a partial order.
const instant = fc.integer({ min: 0, max: 40 }).map((n) => new Date(Date.UTC(2026, 0, 1) + n * 1000));
const both = fc.record({ generatedAt: instant, resourceUpdatedAt: instant });
const maybe = fc.record({ generatedAt: instant, resourceUpdatedAt: fc.option(instant, { nil: null }) });
const accepted = (incoming: FeedbackTimes, stored: FeedbackTimes) => !isStaleFeedback(incoming, stored);
const same = (a: FeedbackTimes, b: FeedbackTimes) =>
  a.generatedAt.getTime() === b.generatedAt.getTime() && a.resourceUpdatedAt?.getTime() === b.resourceUpdatedAt?.getTime();

describe('the staleness order (properties)', () => {
  it('is reflexive: a feedback is never stale against itself', () => {
    fc.assert(fc.property(maybe, (a) => accepted(a, a)));
  });

  it('is antisymmetric: two feedbacks that each replace the other carry the same times', () => {
    fc.assert(fc.property(both, both, (a, b) => !(accepted(a, b) && accepted(b, a)) || same(a, b)));
  });

  it('is transitive: b replacing a and c replacing b means c would have replaced a', () => {
    fc.assert(fc.property(both, both, both, (a, b, c) => !(accepted(b, a) && accepted(c, b)) || accepted(c, a)));
  });

  it('is the product order: accepted exactly when neither time is earlier than the stored one', () => {
    fc.assert(
      fc.property(both, both, (a, b) => {
        const expected = a.generatedAt >= b.generatedAt && a.resourceUpdatedAt! >= b.resourceUpdatedAt!;
        expect(accepted(a, b)).toBe(expected);
      }),
    );
  });

  it('never lets an earlier feedback_generated_at replace a later one, whatever resource_updated_at says', () => {
    fc.assert(fc.property(maybe, maybe, (a, b) => !(a.generatedAt < b.generatedAt) || isStaleFeedback(a, b)));
  });

  it('a sequence of deliveries in any order keeps a stored feedback whose generated time never goes back', () => {
    fc.assert(
      fc.property(fc.array(maybe, { maxLength: 20 }), (arrivals) => {
        let stored: FeedbackTimes | null = null;
        for (const incoming of arrivals) {
          if (isStaleFeedback(incoming, stored)) continue;
          if (stored) expect(incoming.generatedAt.getTime()).toBeGreaterThanOrEqual(stored.generatedAt.getTime());
          stored = incoming;
        }
      }),
    );
  });
});
