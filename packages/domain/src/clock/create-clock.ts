import { DomainError } from '../errors/define-errors';

// decisions §10: every time-dependent rule reads a Clock, so tests can move time (PLATFORM_CLOCK=manual).
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = {
  now: () => new Date(),
};

// What a Date can hold: 8.64e15 ms either side of the epoch.
const MAX_INSTANT_MS = 8.64e15;

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

/** The instant a manual clock is set to by `{"now": ...}`: any valid Date. */
export function manualInstant(target: Date): number {
  const ms = target.getTime();
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_INSTANT_MS) {
    throw new DomainError('VALIDATION_FAILED', 'now: must be a valid ISO 8601 time');
  }
  return ms;
}

/** The instant after moving the clock by `seconds` (fractions kept to the millisecond; negative moves back). */
export function advanceInstant(currentMs: number, seconds: number): number {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) {
    throw new DomainError('VALIDATION_FAILED', 'advance_seconds: must be a finite number');
  }
  const next = currentMs + Math.round(seconds * 1000);
  if (!Number.isFinite(next) || Math.abs(next) > MAX_INSTANT_MS) {
    throw new DomainError('VALIDATION_FAILED', 'advance_seconds: moves the clock out of range');
  }
  return next;
}
