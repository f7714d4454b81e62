import { DomainError } from '../errors/define-errors';
import { EARLIEST_STORED_MS, LATEST_STORED_MS, OUT_OF_STORED_RANGE } from '../time/parse-instant';

// decisions §10: every time-dependent rule reads a Clock, so tests can move time (PLATFORM_CLOCK=manual).
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = {
  now: () => new Date(),
};

// The manual clock stays within the instants the platform stores and renders (parseStoredInstant):
// outside it, the times it stamps could not be stored (PostgreSQL has no year 0) or rendered.
const inRange = (ms: number) => Number.isFinite(ms) && ms >= EARLIEST_STORED_MS && ms <= LATEST_STORED_MS;

/**
 * The manual clock: it reads the instant it was last set to and stands still until it is moved, so
 * a test sees exactly the time it set ("now" is what POST /platform/v1/clock answered) and a move of
 * 300 seconds is exactly 300 seconds. Every process reading the same stored instant agrees.
 */
export function createManualClock(getNowMs: () => number): Clock {
  return {
    now: () => new Date(getNowMs()),
  };
}

/** The instant a manual clock is set to by `{"now": ...}`: a valid Date within the stored range. */
export function manualInstant(target: Date): number {
  const ms = target.getTime();
  if (!Number.isFinite(ms)) throw new DomainError('VALIDATION_FAILED', 'now: must be a valid ISO 8601 time');
  if (!inRange(ms)) {
    throw new DomainError('VALIDATION_FAILED', `now: ${OUT_OF_STORED_RANGE}`);
  }
  return ms;
}

/** The instant after moving the clock by `seconds` (fractions kept to the millisecond; negative moves back). */
export function advanceInstant(currentMs: number, seconds: number): number {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) {
    throw new DomainError('VALIDATION_FAILED', 'advance_seconds: must be a finite number');
  }
  const next = currentMs + Math.round(seconds * 1000);
  if (!inRange(next)) {
    throw new DomainError('VALIDATION_FAILED', `advance_seconds: moves the clock out of range (the clock ${OUT_OF_STORED_RANGE})`);
  }
  return next;
}
