import { Injectable } from '@nestjs/common';
import type { Db, TransactionClient } from '@platform/db';
import { graceExpiry } from '@platform/domain';
import { InjectDb } from '../core/injection';

/** Access tokens of every app kind (decisions §5): only their SHA-256 is stored. */
@Injectable()
export class TokensRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  async create(tx: TransactionClient, installationId: bigint, token: { tokenHash: string; expiresAt: Date }, now: Date): Promise<void> {
    await tx.accessToken.create({ data: { installationId, tokenHash: token.tokenHash, expiresAt: token.expiresAt, createdAt: now } });
  }

  /**
   * decisions §5.3-§5.4: the installation's current tokens get exactly 5 more minutes (never past
   * their own expiry) and are marked replaced; then the new one is stored. The caller holds the
   * installation's lock (AppsService.lockInstallation), so no other refresh or removal of it runs.
   */
  async replace(tx: TransactionClient, installationId: bigint, token: { tokenHash: string; expiresAt: Date }, now: Date): Promise<void> {
    const current = await tx.accessToken.findMany({ where: { installationId, supersededAt: null } });
    for (const old of current) {
      await tx.accessToken.update({ where: { id: old.id }, data: { supersededAt: now, expiresAt: graceExpiry(now, old.expiresAt) } });
    }
    await this.create(tx, installationId, token, now);
  }

  /** Every token of the installation, those in their grace minutes too: invalid at once. */
  async revokeAll(tx: TransactionClient, installationId: bigint): Promise<void> {
    await tx.accessToken.deleteMany({ where: { installationId } });
  }

  /** The installation's tokens not replaced by a refresh (at most one, unless two refreshes raced). */
  current(installationId: bigint): Promise<{ id: bigint; expiresAt: Date }[]> {
    return this.db.prisma.accessToken.findMany({ where: { installationId, supersededAt: null }, select: { id: true, expiresAt: true } });
  }

  /** Records the reminder as sent, unless another process did first: true when this one owns the sending. */
  async claimReminder(tokenId: bigint, at: Date): Promise<boolean> {
    const claimed = await this.db.prisma.accessToken.updateMany({
      where: { id: tokenId, reminderSentAt: null },
      data: { reminderSentAt: at },
    });
    return claimed.count === 1;
  }

  /** The sending failed: the reminder is due again from `retryAt`, one more failure counted. */
  async unclaimReminder(tokenId: bigint, retryAt: Date): Promise<void> {
    await this.db.prisma.accessToken.updateMany({
      where: { id: tokenId },
      data: { reminderSentAt: null, reminderRetryAt: retryAt, reminderFailures: { increment: 1 } },
    });
  }

  /** Whether `tokenHash` names a stored token that has not expired at `now`. */
  async isLive(tokenHash: string, now: Date): Promise<boolean> {
    const row = await this.db.prisma.accessToken.findUnique({ where: { tokenHash }, select: { expiresAt: true } });
    return !!row && row.expiresAt.getTime() > now.getTime();
  }
}
