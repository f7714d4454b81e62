import { Injectable } from '@nestjs/common';
import type { Db, TransactionClient } from '@platform/db';
import { InjectDb } from '../core/injection';
import { isUniqueViolation } from '../core/prisma-errors';

export interface ConsentInput {
  sessionId: bigint;
  storeId: bigint;
  appId: bigint;
  scopes: string;
  redirectUri: string;
  customField: string;
}

export interface CodeRow {
  id: bigint;
  storeId: bigint;
  appId: bigint;
  scopes: string;
  expiresAt: Date;
  usedAt: Date | null;
}

/** OAuth's own rows (decisions §5.2): codes, consent forms, and the signed calls already accepted. */
@Injectable()
export class OAuthRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  /**
   * decisions §5.2: a signed token call is accepted once. Records (app, sign) until the call's
   * timestamp leaves the window; false when it was recorded already (a replay, on any replica:
   * the unique key decides, so two copies at once record one). Rows past their window go first.
   */
  async rememberSignedCall(appId: bigint, sign: string, expiresAt: Date, now: Date): Promise<boolean> {
    await this.db.prisma.oAuthSignedCall.deleteMany({ where: { expiresAt: { lt: now } } });
    try {
      await this.db.prisma.oAuthSignedCall.create({ data: { appId, sign, expiresAt, createdAt: now } });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async createCode(data: {
    codeHash: string;
    storeId: bigint;
    appId: bigint;
    scopes: string;
    expiresAt: Date;
    createdAt: Date;
  }): Promise<void> {
    await this.db.prisma.oAuthCode.create({ data });
  }

  findCode(codeHash: string): Promise<CodeRow | null> {
    return this.db.prisma.oAuthCode.findUnique({ where: { codeHash } });
  }

  async createConsent(data: ConsentInput & { tokenHash: string; expiresAt: Date; createdAt: Date }): Promise<void> {
    await this.db.prisma.oAuthConsent.create({ data });
  }

  /** Claims a consent form once: of this session and store, unused and current; undefined otherwise. */
  async redeemConsent(tokenHash: string, sessionId: bigint, storeId: bigint, now: Date): Promise<ConsentInput | undefined> {
    return this.db.prisma.$transaction(async (tx) => {
      const claimed = await tx.oAuthConsent.updateMany({
        where: { tokenHash, sessionId, storeId, usedAt: null, expiresAt: { gt: now } },
        data: { usedAt: now },
      });
      if (claimed.count !== 1) return undefined;
      return (await tx.oAuthConsent.findUnique({ where: { tokenHash } })) ?? undefined;
    });
  }

  /**
   * Claims a code once, in the exchange's transaction: a conditional update, so two exchanges of
   * one code at once give one token. False when it was used or expired meanwhile.
   */
  async claimCode(tx: TransactionClient, codeId: bigint, now: Date): Promise<boolean> {
    const claimed = await tx.oAuthCode.updateMany({ where: { id: codeId, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
    return claimed.count === 1;
  }

  /** Codes and consent forms of an app on a store not yet used (they would install it again). */
  async forgetUnusedGrants(tx: TransactionClient, storeId: bigint, appId: bigint): Promise<void> {
    await tx.oAuthCode.deleteMany({ where: { storeId, appId, usedAt: null } });
    await tx.oAuthConsent.deleteMany({ where: { storeId, appId, usedAt: null } });
  }
}
