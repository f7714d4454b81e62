/** The two times a feedback carries for the staleness judgement (spec "Product resource feedback"). */
export interface FeedbackTimes {
  /** `feedback_generated_at`: when the app built the feedback. */
  readonly generatedAt: Date;
  /** `resource_updated_at` as the app sent it (the product version it looked at); null when not sent. */
  readonly resourceUpdatedAt: Date | null;
}

/**
 * decisions §9.4: incoming feedback is stale, and ignored, when stored feedback of the same app on
 * the same product exists and the incoming one was generated earlier, or looked at an earlier
 * version of the product (`resource_updated_at`) than the stored one did.
 *
 * Said as an order: feedback is accepted when it is at least the stored one in both times (the
 * product order on the pair, a partial order), so equal times replace (a re-sent feedback is taken).
 * A `resource_updated_at` missing on either side makes no claim about the product version, so that
 * half is skipped and only `feedback_generated_at` decides (docs/decisions.md, Resource feedback).
 */
export function isStaleFeedback(incoming: FeedbackTimes, stored: FeedbackTimes | null | undefined): boolean {
  if (!stored) return false;
  if (incoming.generatedAt.getTime() < stored.generatedAt.getTime()) return true;
  if (incoming.resourceUpdatedAt === null || stored.resourceUpdatedAt === null) return false;
  return incoming.resourceUpdatedAt.getTime() < stored.resourceUpdatedAt.getTime();
}
