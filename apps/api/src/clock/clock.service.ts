import { advanceInstant, createManualClock, manualInstant, type Clock } from '@platform/domain';
import type { Db } from '@platform/db';

/**
 * decisions §10: the service's clock. `system` is real time. `manual` (tests) is an instant kept in
 * the database that stands still until POST /platform/v1/clock moves it, so every process of a
 * deployment (API replicas, senders) reads the same time. It starts at the real time of the first
 * process that reads it. Durations about processes (leases, rate-limit buckets) use real time.
 */
export class ClockService implements Clock {
  private nowMs = Date.now();
  private readonly clock: Clock;

  constructor(
    private readonly db: Db,
    readonly mode: 'system' | 'manual',
  ) {
    this.clock = mode === 'manual' ? createManualClock(() => this.nowMs) : { now: () => new Date() };
  }

  now(): Date {
    return this.clock.now();
  }

  /** Re-reads the shared instant (manual mode only), so a move made by another process is seen. */
  async sync(): Promise<void> {
    if (this.mode !== 'manual') return;
    const row = await this.db.prisma.platformClock.findUnique({ where: { id: 1 } });
    if (row) {
      this.nowMs = Number(row.nowMs);
      return;
    }
    const started = BigInt(Date.now());
    const created = await this.db.prisma.platformClock.upsert({
      where: { id: 1 },
      create: { id: 1, nowMs: started, updatedAt: new Date() },
      update: {},
    });
    this.nowMs = Number(created.nowMs);
  }

  async set(change: { advanceSeconds: number } | { now: Date }): Promise<Date> {
    await this.sync();
    const nowMs = 'now' in change ? manualInstant(change.now) : advanceInstant(this.nowMs, change.advanceSeconds);
    await this.db.prisma.platformClock.upsert({
      where: { id: 1 },
      create: { id: 1, nowMs: BigInt(nowMs), updatedAt: new Date() },
      update: { nowMs: BigInt(nowMs), updatedAt: new Date() },
    });
    this.nowMs = nowMs;
    return this.now();
  }
}
