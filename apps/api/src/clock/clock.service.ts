import { advanceInstant, createManualClock, manualInstant, type Clock } from '@platform/domain';
import type { Db } from '@platform/db';
import { isUniqueViolation } from '../db/prisma-errors';

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
    this.nowMs = Number((row ?? (await this.start())).nowMs);
  }

  /** The first process to read the manual clock starts it at its real time; the others read that. */
  private async start(): Promise<{ nowMs: bigint }> {
    try {
      return await this.db.prisma.platformClock.create({ data: { id: 1, nowMs: BigInt(Date.now()), updatedAt: new Date() } });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return this.db.prisma.platformClock.findUniqueOrThrow({ where: { id: 1 } });
    }
  }

  async set(change: { advanceSeconds: number } | { now: Date }): Promise<Date> {
    await this.sync();
    if ('now' in change) {
      const nowMs = manualInstant(change.now);
      await this.db.prisma.platformClock.update({ where: { id: 1 }, data: { nowMs: BigInt(nowMs), updatedAt: new Date() } });
      this.nowMs = nowMs;
      return this.now();
    }
    // Checked against this process's reading, applied as an increment: two moves at once both count.
    const by = advanceInstant(this.nowMs, change.advanceSeconds) - this.nowMs;
    const row = await this.db.prisma.platformClock.update({
      where: { id: 1 },
      data: { nowMs: { increment: BigInt(by) }, updatedAt: new Date() },
    });
    this.nowMs = Number(row.nowMs);
    return this.now();
  }
}
