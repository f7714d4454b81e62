import { MAX_DELIVERY_ATTEMPTS, nextRetryDelayMs, parseRetryAfter } from '@platform/domain/webhooks';
import type { AttemptResult } from './deliver';

/** What an attempt's result means for its delivery (decisions §11.4-§11.5). */
export type Outcome =
  | { kind: 'delivered' }
  | { kind: 'retry'; nextAttemptAt: Date }
  /** retries used up, or the receiver answered 410 Gone (`gone`: the subscription is disabled) */
  | { kind: 'failed'; gone: boolean };

/**
 * `attempt` is the number of the attempt just made (1 for the first); `now` the service clock.
 * A `Retry-After` answer replaces the scheduled wait (bounded to 10 s - 2 h by the domain rule).
 */
export function decideOutcome(result: AttemptResult, attempt: number, now: Date, random: number = Math.random()): Outcome {
  if (result.ok) return { kind: 'delivered' };
  if (result.status === 410) return { kind: 'failed', gone: true };
  const wait = nextRetryDelayMs(Math.min(attempt, MAX_DELIVERY_ATTEMPTS), random, parseRetryAfter(result.retryAfter, now));
  if (wait === undefined) return { kind: 'failed', gone: false };
  return { kind: 'retry', nextAttemptAt: new Date(now.getTime() + wait) };
}
