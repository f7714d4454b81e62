import { describe, expect, it } from 'vitest';
import { compactionTarget } from './compact';

// When the senders compact a table of the delivery history (PostgreSQL; the compaction itself runs
// against a real server in test/compaction.e2e.test.ts): only when its file is much larger than its
// rows need, never in the steady state of a retention window.
describe('compactionTarget', () => {
  // Deliveries of about 450 bytes on pages filled to half: about 8.5 a page.
  const deliveries = (rows: number, pages: number) => ({ pages, rows, rowsPerPage: 8.5 });

  it('moves the rows past twice the pages they need when a pass cut a long history to its last rows', () => {
    // 10,000,000 deliveries (1,170,000 pages) cut to 5,000: they need 589 pages.
    expect(compactionTarget(deliveries(5_000, 1_170_000))).toBe(2 * 589);
  });

  it('leaves a table about its rows size alone: a window of 30 days from which a pass removed a few minutes', () => {
    expect(compactionTarget(deliveries(3_000_000, 353_000))).toBeUndefined();
    // Even with half of it free (new rows fill it again), and with its newest rows spread over
    // twice as many pages (written into the gaps of older pages).
    expect(compactionTarget(deliveries(1_500_000, 353_000))).toBeUndefined();
    expect(compactionTarget({ pages: 353_000, rows: 3_000_000, rowsPerPage: 4.25 })).toBeUndefined();
  });

  it('leaves small tables alone however empty: less than 8 MB to give back', () => {
    expect(compactionTarget(deliveries(0, 1_100))).toBeUndefined();
    expect(compactionTarget(deliveries(0, 1_200))).toBe(128);
  });
});
