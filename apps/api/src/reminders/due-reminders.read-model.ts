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

/**
 * decisions §5.4: private-app tokens due their expiry reminder. A read model (docs/architecture.md,
 * "Tables and their owners"): tokens with their app's and store's names, read only; the mark that
 * a reminder was sent is the tokens room's (TokensService.claimReminder).
 */
@Injectable()
export class DueRemindersReadModel {
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
}
