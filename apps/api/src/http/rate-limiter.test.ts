import { describe, expect, it } from 'vitest';
import { LeakyBucketLimiter } from './rate-limiter';

describe(LeakyBucketLimiter.name, () => {
  it('allows 40 requests at once and refuses the 41st with a whole-second Retry-After', () => {
    const sut = new LeakyBucketLimiter(40, 4);
    for (let i = 1; i <= 40; i++) expect(sut.take('a', 0)).toMatchObject({ allowed: true, used: i });
    const refused = sut.take('a', 0);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(1);
  });

  it('leaks 4 requests a second', () => {
    const sut = new LeakyBucketLimiter(40, 4);
    for (let i = 0; i < 40; i++) sut.take('a', 0);
    expect(sut.take('a', 1000)).toMatchObject({ allowed: true, used: 37 });
  });

  it('keeps one bucket per key', () => {
    const sut = new LeakyBucketLimiter(1, 4);
    expect(sut.take('a', 0).allowed).toBe(true);
    expect(sut.take('b', 0).allowed).toBe(true);
    expect(sut.take('a', 0).allowed).toBe(false);
  });
});
