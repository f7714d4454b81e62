import { Injectable } from '@nestjs/common';
import type { Db } from '@platform/db';
import { InjectDb } from '../core/injection';

export interface DueReminder {
  tokenId: bigint;
  /** Refused sendings so far. */
  failures: number;
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

  /**
   * Current (not superseded) private tokens expiring in (now, dueBefore] whose reminder was never
   * sent and is not waiting to be retried; the least tried first, so reminders a mail server keeps
   * refusing never hold up the others.
   */
  async due(now: Date, dueBefore: Date, take: number): Promise<DueReminder[]> {
    const rows = await this.db.prisma.accessToken.findMany({
      where: {
        reminderSentAt: null,
        supersededAt: null,
        expiresAt: { gt: now, lte: dueBefore },
        OR: [{ reminderRetryAt: null }, { reminderRetryAt: { lte: now } }],
        installation: { app: { kind: 'private' } },
      },
      orderBy: [{ reminderFailures: 'asc' }, { id: 'asc' }],
      take,
      select: {
        id: true,
        expiresAt: true,
        reminderFailures: true,
        installation: {
          select: { app: { select: { name: true } }, store: { select: { handle: true, name: true, email: true, ianaTimezone: true } } },
        },
      },
    });
    return rows.map((row) => ({
      tokenId: row.id,
      failures: row.reminderFailures,
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
    const claimed = await this.db.prisma.accessToken.updateMany({
      where: { id: tokenId, reminderSentAt: null },
      data: { reminderSentAt: at },
    });
    return claimed.count === 1;
  }

  /** The sending failed: the reminder is due again from `retryAt`, one more failure counted. */
  async unclaim(tokenId: bigint, retryAt: Date): Promise<void> {
    await this.db.prisma.accessToken.updateMany({
      where: { id: tokenId },
      data: { reminderSentAt: null, reminderRetryAt: retryAt, reminderFailures: { increment: 1 } },
    });
  }
}
