import { Injectable } from '@nestjs/common';
import type { App, Db } from '@platform/db';
import { graceExpiry } from '@platform/domain';
import { forgetUnusedGrants, removeInstallation } from '../apps/uninstall';
import { InjectDb } from '../db/db.module';
import { isUniqueViolation } from '../db/prisma-errors';

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

export interface InstallationRow {
  id: bigint;
  scopes: string;
  /** The tokens not replaced by a refresh (at most one, unless two refreshes raced). */
  accessTokens: { id: bigint; expiresAt: Date }[];
}

/** Codes, consent forms, installations and tokens of custom and public apps (decisions §5.2-§5.3). */
@Injectable()
export class OAuthRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  appByKey(appKey: string): Promise<App | null> {
    return this.db.prisma.app.findUnique({ where: { appKey } });
  }

  appById(id: bigint): Promise<App | null> {
    return this.db.prisma.app.findUnique({ where: { id } });
  }

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

  /** docs/decisions.md: a custom app belongs to the store of its first approval; false if another store has it. */
  async bindCustomApp(appId: bigint, storeId: bigint): Promise<boolean> {
    const bound = await this.db.prisma.app.updateMany({
      where: { id: appId, kind: 'custom', OR: [{ storeId: null }, { storeId }] },
      data: { storeId },
    });
    return bound.count === 1;
  }

  async createCode(data: { codeHash: string; storeId: bigint; appId: bigint; scopes: string; expiresAt: Date; createdAt: Date }): Promise<void> {
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
   * Exchanges a code for a token in one transaction: the code is claimed by a conditional update
   * (two exchanges of one code at once give one token), the installation takes the code's scopes,
   * earlier tokens of the installation get the 5 minutes of a refresh, and the new token is stored.
   */
  async exchangeCode(
    code: CodeRow,
    token: { tokenHash: string; expiresAt: Date },
    now: Date,
  ): Promise<boolean> {
    return this.db.prisma.$transaction(async (tx) => {
      const claimed = await tx.oAuthCode.updateMany({
        where: { id: code.id, usedAt: null, expiresAt: { gt: now } },
        data: { usedAt: now },
      });
      if (claimed.count !== 1) return false;
      const installation = await tx.installation.upsert({
        where: { storeId_appId: { storeId: code.storeId, appId: code.appId } },
        create: { storeId: code.storeId, appId: code.appId, scopes: code.scopes, createdAt: now, updatedAt: now },
        update: { scopes: code.scopes, updatedAt: now },
      });
      await this.supersede(tx, installation.id, now);
      await tx.accessToken.create({ data: { installationId: installation.id, tokenHash: token.tokenHash, expiresAt: token.expiresAt, createdAt: now } });
      return true;
    });
  }

  installation(storeId: bigint, appId: bigint): Promise<InstallationRow | null> {
    return this.db.prisma.installation.findUnique({
      where: { storeId_appId: { storeId, appId } },
      include: { accessTokens: { where: { supersededAt: null } } },
    });
  }

  /** decisions §5.3: a new token; the previous ones stay valid exactly 5 more minutes (never past their own expiry). */
  async refresh(installationId: bigint, token: { tokenHash: string; expiresAt: Date }, now: Date): Promise<void> {
    await this.db.prisma.$transaction(async (tx) => {
      await this.supersede(tx, installationId, now);
      await tx.accessToken.create({ data: { installationId, tokenHash: token.tokenHash, expiresAt: token.expiresAt, createdAt: now } });
    });
  }

  /**
   * decisions §5.3: cancel. Everything an uninstall removes goes (apps/uninstall.ts): every token of
   * the app on the store (those in their grace minutes too), the installation, its webhook
   * subscriptions and pending deliveries, and codes and consent forms not yet used, so nothing
   * issued before the cancel can install the app again or reach it.
   */
  async removeInstallation(storeId: bigint, appId: bigint, now: Date): Promise<boolean> {
    return this.db.prisma.$transaction(async (tx) => {
      const installation = await tx.installation.findUnique({ where: { storeId_appId: { storeId, appId } } });
      if (!installation) {
        await forgetUnusedGrants(tx, storeId, appId);
        return false;
      }
      await removeInstallation(tx, installation, now, 'app authorization cancelled');
      return true;
    });
  }

  private async supersede(tx: Parameters<Parameters<Db['prisma']['$transaction']>[0]>[0], installationId: bigint, now: Date): Promise<void> {
    const current = await tx.accessToken.findMany({ where: { installationId, supersededAt: null } });
    for (const old of current) {
      await tx.accessToken.update({ where: { id: old.id }, data: { supersededAt: now, expiresAt: graceExpiry(now, old.expiresAt) } });
    }
  }
}
