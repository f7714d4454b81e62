import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from './claimed';
import { heldCap, oldestDueOf, type Held } from './hold';

describe('heldCap: how many deliveries a sender may hold in all', () => {
  it('holds its concurrency until it has seen a body, then up to four times that for small bodies', () => {
    expect(heldCap(256, 0)).toBe(256);
    expect(heldCap(256, 500)).toBe(1024);
    expect(heldCap(16, 2_000)).toBe(64);
  });

  it('keeps what it holds beyond its concurrency within 64 MiB of bodies', () => {
    const MiB = 1024 * 1024;
    // 128 KiB bodies: 512 more at most (64 MiB), not 768
    expect(heldCap(256, 128 * 1024)).toBe(256 + 512);
    expect(heldCap(256, 64 * MiB)).toBe(257);
    // bodies larger than 64 MiB: no more than its concurrency, as before
    expect(heldCap(256, 100 * MiB)).toBe(256);
    for (const body of [1, 1000, 70_000, 300_000, 5 * MiB]) {
      const extra = heldCap(256, body) - 256;
      expect(extra * body).toBeLessThanOrEqual(64 * MiB);
      expect(extra).toBeLessThanOrEqual(768);
    }
  });
});

describe('oldestDueOf: the earliest due time of the held deliveries (a claim plans their queue from it)', () => {
  const held = (at: string): Held => ({ d: { nextAttemptAt: new Date(at) } as ClaimedDelivery, id: 1n, owner: 'o', leaseEnds: 0 });

  it('finds the earliest wherever it is in the list (retries fall due out of claim order)', () => {
    const list = [held('2026-12-03T10:00:02Z'), held('2026-12-03T09:59:58Z'), held('2026-12-03T10:00:01Z')];
    expect(oldestDueOf(list).toISOString()).toBe('2026-12-03T09:59:58.000Z');
    expect(oldestDueOf(list)).toBe(list[1]!.d.nextAttemptAt);
  });

  it('is now when nothing is held', () => {
    const before = Date.now();
    const at = oldestDueOf([]).getTime();
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
  });
});
