import { wakeSenders, type Db } from '@platform/db';
import { isUniqueViolation } from './prisma-errors';

/**
 * The one row of the manual clock (decisions §10), shared by every process of a deployment. A move
 * wakes the webhook senders (as a commit of deliveries does): retries it makes due are claimed at
 * once rather than at the senders' next poll.
 */
export class ClockRepository {
  constructor(
    private readonly db: Db,
    private readonly start?: Date,
  ) {}

  /** The shared instant in ms; the first process to read it starts it at `start`, or at its real time. */
  async read(): Promise<number> {
    const row = await this.db.prisma.platformClock.findUnique({ where: { id: 1 } });
    if (row) return Number(row.nowMs);
    try {
      return Number(
        (
          await this.db.prisma.platformClock.create({
            data: { id: 1, nowMs: BigInt(this.start?.getTime() ?? Date.now()), updatedAt: new Date() },
          })
        ).nowMs,
      );
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return Number((await this.db.prisma.platformClock.findUniqueOrThrow({ where: { id: 1 } })).nowMs);
    }
  }

  async set(nowMs: number): Promise<void> {
    await this.db.prisma.platformClock.update({ where: { id: 1 }, data: { nowMs: BigInt(nowMs), updatedAt: new Date() } });
    await wakeSenders(this.db);
  }

  /** Moves the instant by `byMs` as an increment (two moves at once both count); the new instant. */
  async advance(byMs: number): Promise<number> {
    const row = await this.db.prisma.platformClock.update({
      where: { id: 1 },
      data: { nowMs: { increment: BigInt(byMs) }, updatedAt: new Date() },
    });
    await wakeSenders(this.db);
    return Number(row.nowMs);
  }
}
