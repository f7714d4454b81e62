import { createOffsetClock, offsetAfterAdvance, offsetForTarget, type Clock } from '@platform/domain';
import type { Db } from '@platform/db';

/**
 * decisions §10: the service's clock. `system` is real time. `manual` (tests) is real time plus an
 * offset kept in the database, so every process of a deployment (API replicas, senders) agrees.
 */
export class ClockService implements Clock {
  private offsetMs = 0;
  private readonly clock: Clock;

  constructor(
    private readonly db: Db,
    readonly mode: 'system' | 'manual',
  ) {
    this.clock = createOffsetClock(() => this.offsetMs);
  }

  now(): Date {
    return this.clock.now();
  }

  /** Re-reads the shared offset (manual mode only), so a change made by another process is seen. */
  async sync(): Promise<void> {
    if (this.mode !== 'manual') return;
    const row = await this.db.prisma.platformClock.findUnique({ where: { id: 1 } });
    this.offsetMs = row ? Number(row.offsetMs) : 0;
  }

  async set(change: { advanceSeconds: number } | { now: Date }): Promise<Date> {
    await this.sync();
    const offsetMs =
      'now' in change ? offsetForTarget(change.now, Date.now()) : offsetAfterAdvance(this.offsetMs, change.advanceSeconds);
    await this.db.prisma.platformClock.upsert({
      where: { id: 1 },
      create: { id: 1, offsetMs: BigInt(Math.round(offsetMs)) },
      update: { offsetMs: BigInt(Math.round(offsetMs)) },
    });
    this.offsetMs = Math.round(offsetMs);
    return this.now();
  }
}
