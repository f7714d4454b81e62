import type { Clock } from '../src/clock';

/** A clock whose sleeps return at once and move time forward by what was asked: retries and pacing without waiting. */
export function fakeClock(start = Date.parse('2026-11-22T00:00:00Z')): Clock & { sleeps: number[]; advance(ms: number): void } {
  let now = start;
  const sleeps: number[] = [];
  return {
    now: () => now,
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      now += ms;
      await Promise.resolve();
    },
    sleeps,
    advance(ms) {
      now += ms;
    },
  };
}
