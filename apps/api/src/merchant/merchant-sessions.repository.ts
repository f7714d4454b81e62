import { Injectable } from '@nestjs/common';
import type { Db } from '@platform/db';
import { InjectDb } from '../core/injection';

export interface SessionRow {
  id: bigint;
  storeId: bigint;
  tokenHash: string;
  expiresAt: Date;
}

/** Sign-in links and merchant sessions: only hashes are stored (decisions §5.1 applies to them too). */
@Injectable()
export class MerchantSessionsRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  async createLink(storeId: bigint, tokenHash: string, expiresAt: Date, now: Date): Promise<void> {
    await this.db.prisma.merchantSignInLink.create({ data: { storeId, tokenHash, expiresAt, createdAt: now } });
  }

  /**
   * Uses a link and opens a session in one transaction. The link is claimed by a conditional update,
   * so two openings of one link at once give one session: single use holds under races.
   */
  async redeemLink(
    storeId: bigint,
    linkHash: string,
    sessionHash: string,
    sessionExpiresAt: Date,
    now: Date,
  ): Promise<SessionRow | undefined> {
    return this.db.prisma.$transaction(async (tx) => {
      const claimed = await tx.merchantSignInLink.updateMany({
        where: { tokenHash: linkHash, storeId, usedAt: null, expiresAt: { gt: now } },
        data: { usedAt: now },
      });
      if (claimed.count !== 1) return undefined;
      return tx.merchantSession.create({ data: { storeId, tokenHash: sessionHash, expiresAt: sessionExpiresAt, createdAt: now } });
    });
  }

  async findSession(storeId: bigint, tokenHash: string, now: Date): Promise<SessionRow | undefined> {
    const row = await this.db.prisma.merchantSession.findUnique({ where: { tokenHash } });
    if (!row || row.storeId !== storeId || row.expiresAt.getTime() <= now.getTime()) return undefined;
    return row;
  }

  async deleteSession(id: bigint): Promise<void> {
    await this.db.prisma.merchantSession.deleteMany({ where: { id } });
  }

  /** Expired rows are of no use to anyone; dropped when a new session opens. */
  async deleteExpired(now: Date): Promise<void> {
    await this.db.prisma.merchantSession.deleteMany({ where: { expiresAt: { lte: now } } });
    await this.db.prisma.merchantSignInLink.deleteMany({ where: { expiresAt: { lte: now } } });
  }
}
