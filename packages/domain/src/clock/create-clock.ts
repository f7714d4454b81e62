import { DomainError } from '../errors/define-errors';

// decisions §10: every time-dependent rule reads a Clock, so tests can move time (PLATFORM_CLOCK=manual).
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = {
  now: () => new Date(),
};

// A Date holds at most 8.64e15 ms either side of the epoch; keep headroom for the real time added.
const MAX_OFFSET_MS = 8.6e15;

/**
 * The manual clock: real time plus an offset read on every call, so it keeps ticking from where it
 * was set and every process reading the same offset sees the same time.
 */
export function createOffsetClock(getOffsetMs: () => number, realNow: () => number = Date.now): Clock {
  return {
    now: () => new Date(realNow() + getOffsetMs()),
  };
}

/** The offset that makes the offset clock read `target` at real time `realNowMs`. */
export function offsetForTarget(target: Date, realNowMs: number): number {
  const targetMs = target.getTime();
  if (!Number.isFinite(targetMs) || !Number.isFinite(realNowMs)) {
    throw new DomainError('VALIDATION_FAILED', 'now: must be a valid ISO 8601 time');
  }
  return targetMs - realNowMs;
}

/** The offset after moving the clock by `seconds` (fractions kept to the millisecond; negative moves back). */
export function offsetAfterAdvance(currentOffsetMs: number, seconds: number): number {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) {
    throw new DomainError('VALIDATION_FAILED', 'advance_seconds: must be a finite number');
  }
  const next = currentOffsetMs + Math.round(seconds * 1000);
  if (!Number.isFinite(next) || Math.abs(next) > MAX_OFFSET_MS) {
    throw new DomainError('VALIDATION_FAILED', 'advance_seconds: moves the clock out of range');
  }
  return next;
}
