import { advanceInstant, createManualClock, manualInstant, type Clock } from '@platform/domain';
import type { Db } from '@platform/db';
import { ClockRepository } from './clock.repository';

/**
 * decisions §10: the service's clock. `system` is real time. `manual` (tests) is an instant kept in
 * the database that stands still until POST /platform/v1/clock moves it, so every process of a
 * deployment (API replicas, senders) reads the same time. It starts at PLATFORM_CLOCK_START, or at
 * the real time of the first process that reads it. Durations about processes (leases, rate-limit buckets) use real time.
 */
export class ClockService implements Clock {
  private nowMs: number;
  private readonly clock: Clock;
  private readonly repository: ClockRepository;

  constructor(
    db: Db,
    readonly mode: 'system' | 'manual',
    start?: Date,
  ) {
    this.nowMs = start?.getTime() ?? Date.now();
    this.repository = new ClockRepository(db, start);
    this.clock = mode === 'manual' ? createManualClock(() => this.nowMs) : { now: () => new Date() };
  }

  now(): Date {
    return this.clock.now();
  }

  /** Re-reads the shared instant (manual mode only), so a move made by another process is seen. */
  async sync(): Promise<void> {
    if (this.mode !== 'manual') return;
    this.nowMs = await this.repository.read();
  }

  async set(change: { advanceSeconds: number } | { now: Date }): Promise<Date> {
    await this.sync();
    if ('now' in change) {
      const nowMs = manualInstant(change.now);
      await this.repository.set(nowMs);
      this.nowMs = nowMs;
      return this.now();
    }
    // Checked against this process's reading, applied as an increment: two moves at once both count.
    this.nowMs = await this.repository.advance(advanceInstant(this.nowMs, change.advanceSeconds) - this.nowMs);
    return this.now();
  }
}
