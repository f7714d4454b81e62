import type { Db } from '@platform/db';
import { Prisma } from '@platform/db';

/**
 * decisions §10: the service clock as the sender sees it. `system`: real time. `manual` (tests):
 * the instant stored in the `platform_clock` row, re-read by `sync()` before every claim, so a move
 * made through the API (POST /platform/v1/clock) is seen by every sender. Lease times are real time
 * whatever the mode: they are about processes, not about the service.
 */
export interface SenderClock {
  now(): Date;
  sync(): Promise<void>;
}

export function createSenderClock(db: Db, mode: 'system' | 'manual'): SenderClock {
  if (mode === 'system') return { now: () => new Date(), sync: async () => undefined };
  let nowMs = Date.now();
  return {
    now: () => new Date(nowMs),
    async sync() {
      let row = await db.prisma.platformClock.findUnique({ where: { id: 1 } });
      if (!row) {
        // The first process to read the manual clock starts it at its real time (as the API does).
        try {
          row = await db.prisma.platformClock.create({ data: { id: 1, nowMs: BigInt(Date.now()), updatedAt: new Date() } });
        } catch (error) {
          if (!(error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')) throw error;
          row = await db.prisma.platformClock.findUniqueOrThrow({ where: { id: 1 } });
        }
      }
      nowMs = Number(row.nowMs);
    },
  };
}
