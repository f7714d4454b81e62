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
   * their own expiry) and are marked replaced; then the new one is stored.
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
}
