/**
 * The `updated_at` an update writes. Times are rendered to the second (decisions §3.3), and an
 * update must be visible as one (spec: "updated_at refreshed"; decisions §10: PATCH changes
 * `updated_at`), even when it lands in the same second as the previous write or the clock stands
 * still (PLATFORM_CLOCK=manual). So: the current time when it is at least a rendered second past the
 * stored value, else the stored value's second plus one. It never goes back, even if the clock does.
 */
export function nextUpdatedAt(previous: Date | null | undefined, now: Date): Date {
  if (!previous) return now;
  const nextSecond = Math.floor(previous.getTime() / 1000) * 1000 + 1000;
  return now.getTime() >= nextSecond ? now : new Date(nextSecond);
}
