import { Injectable } from '@nestjs/common';
import type { Db } from '@platform/db';
import { InjectDb } from '../db/db.module';

export interface DueReminder {
  tokenId: bigint;
  expiresAt: Date;
  appName: string;
  storeHandle: string;
  storeName: string;
  storeEmail: string;
  storeTimezone: string;
}

/** decisions §5.4: private-app tokens due their expiry reminder, and the record that it was sent. */
@Injectable()
export class TokenRemindersRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  /** Current (not superseded) private tokens expiring in (now, dueBefore] whose reminder was never sent. */
  async due(now: Date, dueBefore: Date, take: number): Promise<DueReminder[]> {
    const rows = await this.db.prisma.accessToken.findMany({
      where: {
        reminderSentAt: null,
        supersededAt: null,
        expiresAt: { gt: now, lte: dueBefore },
        installation: { app: { kind: 'private' } },
      },
      orderBy: { id: 'asc' },
      take,
      select: {
        id: true,
        expiresAt: true,
        installation: { select: { app: { select: { name: true } }, store: { select: { handle: true, name: true, email: true, ianaTimezone: true } } } },
      },
    });
    return rows.map((row) => ({
      tokenId: row.id,
      expiresAt: row.expiresAt,
      appName: row.installation.app.name,
      storeHandle: row.installation.store.handle,
      storeName: row.installation.store.name,
      storeEmail: row.installation.store.email,
      storeTimezone: row.installation.store.ianaTimezone,
    }));
  }

  /** Records the reminder as sent, unless another process did first: true when this one owns the sending. */
  async claim(tokenId: bigint, at: Date): Promise<boolean> {
    const claimed = await this.db.prisma.accessToken.updateMany({ where: { id: tokenId, reminderSentAt: null }, data: { reminderSentAt: at } });
    return claimed.count === 1;
  }

  /** The sending failed: the reminder is due again on the next pass. */
  async unclaim(tokenId: bigint): Promise<void> {
    await this.db.prisma.accessToken.updateMany({ where: { id: tokenId }, data: { reminderSentAt: null } });
  }

  sentAt(tokenId: bigint): Promise<Date | null> {
    return this.db.prisma.accessToken.findUnique({ where: { id: tokenId }, select: { reminderSentAt: true } }).then((row) => row?.reminderSentAt ?? null);
  }
}
