import { describe, expect, it } from 'vitest';
import { compactionTarget } from './compact';

// When the senders compact a table of the delivery history (PostgreSQL; the compaction itself runs
// against a real server in test/retention.e2e.test.ts): only when its file is much larger than its
// rows need, never in the steady state of a retention window.
describe('compactionTarget', () => {
  const page = 8192;
  // A delivery of about 450 bytes on pages filled to half: about 8 a page.
  const deliveries = (rows: number, pages: number) => ({ pages, blockSize: page, rows, rowBytes: 450 });

  it('moves the rows past twice the pages they need when a pass cut a long history to its last rows', () => {
    // 10,000,000 deliveries (1,170,000 pages) cut to 5,000.
    const target = compactionTarget(deliveries(5_000, 1_170_000));
    expect(target).toBe(2 * Math.ceil((5_000 * 478 * 2) / page));
    expect(target).toBeLessThan(1_500);
  });

  it('leaves a table about its rows size alone: a window of 30 days from which a pass removed a few minutes', () => {
    expect(compactionTarget(deliveries(3_000_000, 351_000))).toBeUndefined();
    // Even with a quarter of it free (new rows fill it again).
    expect(compactionTarget(deliveries(3_000_000, 468_000))).toBeUndefined();
  });

  it('leaves small tables alone however empty: less than 8 MB to give back', () => {
    expect(compactionTarget(deliveries(0, 1_100))).toBeUndefined();
    expect(compactionTarget(deliveries(0, 1_200))).toBe(128);
  });
});
