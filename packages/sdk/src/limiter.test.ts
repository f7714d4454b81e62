import { describe, expect, it } from 'vitest';
import { fakeClock } from '../test/fake-clock';
import { createLeakyBucket, type ThrottleInfo } from './limiter';

describe(createLeakyBucket.name, () => {
  it('lets the capacity through at once, then paces at the leak rate (decisions §7.1: 40, 4/s)', async () => {
    const clock = fakeClock();
    const bucket = createLeakyBucket({ clock });
    for (let i = 0; i < 40; i += 1) await bucket.acquire();
    expect(clock.sleeps).toEqual([]);
    const throttled: ThrottleInfo[] = [];
    await bucket.acquire(undefined, (info) => throttled.push(info));
    expect(clock.sleeps).toEqual([250]);
    expect(throttled).toEqual([{ waitMs: 250, used: 40, capacity: 40 }]);
  });

  it('drains with time: after 10 s of quiet, 40 more go at once', async () => {
    const clock = fakeClock();
    const bucket = createLeakyBucket({ clock });
    for (let i = 0; i < 40; i += 1) await bucket.acquire();
    clock.advance(10_000);
    for (let i = 0; i < 40; i += 1) await bucket.acquire();
    expect(clock.sleeps).toEqual([]);
  });

  it('resyncs from X-Platform-Api-Call-Limit when the service counted more (another process, same token)', async () => {
    const clock = fakeClock();
    const bucket = createLeakyBucket({ clock });
    bucket.observe('40/40');
    await bucket.acquire();
    expect(clock.sleeps).toEqual([250]);
  });

  it("adopts the service's capacity from the header", async () => {
    const clock = fakeClock();
    const bucket = createLeakyBucket({ clock });
    bucket.observe('1/100');
    for (let i = 0; i < 99; i += 1) await bucket.acquire();
    expect(clock.sleeps).toEqual([]);
    expect(bucket.state.capacity).toBe(100);
  });

  it('ignores a malformed header', () => {
    const bucket = createLeakyBucket({ clock: fakeClock() });
    bucket.observe('lots');
    bucket.observe(null);
    expect(bucket.state).toEqual({ used: 0, capacity: 40 });
  });

  it('holds everyone for Retry-After after a 429', async () => {
    const clock = fakeClock();
    const bucket = createLeakyBucket({ clock });
    bucket.holdFor(3);
    await bucket.acquire();
    expect(clock.sleeps[0]).toBe(3000);
  });

  it('serves waiters in order, and one aborted waiter does not stall the rest', async () => {
    const clock = fakeClock();
    const bucket = createLeakyBucket({ clock, capacity: 1, leakPerSecond: 1 });
    await bucket.acquire();
    const aborted = new AbortController();
    aborted.abort(new Error('gave up'));
    const order: string[] = [];
    const a = bucket.acquire(aborted.signal).then(
      () => order.push('a'),
      () => order.push('a aborted'),
    );
    const b = bucket.acquire().then(() => order.push('b'));
    await Promise.all([a, b]);
    expect(order).toEqual(['a aborted', 'b']);
  });

  it('refuses a bucket that could never let a request through', () => {
    expect(() => createLeakyBucket({ clock: fakeClock(), capacity: 0 })).toThrow(RangeError);
    expect(() => createLeakyBucket({ clock: fakeClock(), leakPerSecond: 0 })).toThrow(RangeError);
  });
});
