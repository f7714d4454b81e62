import { daysInMonth } from '../time/count-days';

// decisions §5.3-5.4: token lifetimes, and the grace an old token keeps after a refresh.
export const TOKEN_GRACE_SECONDS = 300;
export const PRIVATE_TOKEN_YEARS = 3;
export const OAUTH_TOKEN_HOURS = 10;

export type AppKind = 'private' | 'custom' | 'public';

/**
 * Private tokens: 3 calendar years later in UTC (29 February lands on 28 February);
 * custom and public tokens: 10 hours later.
 */
export function tokenExpiresAt(kind: AppKind, issuedAt: Date): Date {
  const ms = issuedAt.getTime();
  if (Number.isNaN(ms)) throw new RangeError('tokenExpiresAt: invalid issue time');
  if (kind !== 'private') return new Date(ms + OAUTH_TOKEN_HOURS * 3_600_000);
  const out = new Date(ms);
  const year = out.getUTCFullYear() + PRIVATE_TOKEN_YEARS;
  const month = out.getUTCMonth();
  out.setUTCFullYear(year, month, Math.min(out.getUTCDate(), daysInMonth(year, month + 1)));
  return out;
}

/** decisions §5.3: after a refresh the old token lives 5 more minutes, never past its own expiry. */
export function graceExpiry(now: Date, currentExpiresAt: Date): Date {
  const grace = now.getTime() + TOKEN_GRACE_SECONDS * 1000;
  return new Date(Math.min(grace, currentExpiresAt.getTime()));
}

/** decisions §5.4: a private token's expiry reminder goes out this many days before it expires. */
export const EXPIRY_REMINDER_DAYS = 30;

/** The pause before a refused reminder is tried again: 5 minutes, doubling, at most a day. */
export function reminderRetryDelayMs(failures: number): number {
  return Math.min(5 * 60_000 * 2 ** Math.max(0, Math.min(failures - 1, 20)), 86_400_000);
}
