import { Injectable } from '@nestjs/common';
import type { App, Db, TransactionClient } from '@platform/db';
import { InjectDb } from '../core/injection';

export interface InstallationWithApp {
  id: bigint;
  storeId: bigint;
  appId: bigint;
  scopes: string;
  app: App;
}

/** Apps and their installations on stores (decisions §5, §10). */
@Injectable()
export class AppsRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  createApp(
    tx: TransactionClient,
    data: {
      name: string;
      kind: string;
      appKey: string;
      appSecret: string;
      scopes: string;
      redirectUrls: string;
      storeId: bigint | null;
      now: Date;
    },
  ): Promise<App> {
    const { now, ...fields } = data;
    return tx.app.create({ data: { ...fields, createdAt: now, updatedAt: now } });
  }

  async createInstallation(tx: TransactionClient, storeId: bigint, appId: bigint, scopes: string, now: Date): Promise<{ id: bigint }> {
    return tx.installation.create({ data: { storeId, appId, scopes, createdAt: now, updatedAt: now }, select: { id: true } });
  }

  /** The installation of an app on a store, made or given the scopes of a new grant (decisions §5.2). */
  upsertInstallation(tx: TransactionClient, storeId: bigint, appId: bigint, scopes: string, now: Date): Promise<{ id: bigint }> {
    return tx.installation.upsert({
      where: { storeId_appId: { storeId, appId } },
      create: { storeId, appId, scopes, createdAt: now, updatedAt: now },
      update: { scopes, updatedAt: now },
      select: { id: true },
    });
  }

  installation(storeId: bigint, appId: bigint, tx?: TransactionClient): Promise<InstallationWithApp | null> {
    return (tx ?? this.db.prisma).installation.findUnique({ where: { storeId_appId: { storeId, appId } }, include: { app: true } });
  }

  /** False when it was gone already (a removal at the same moment took it: PostgreSQL's delete of a row another transaction deleted finds none). */
  async deleteInstallation(tx: TransactionClient, installationId: bigint): Promise<boolean> {
    return (await tx.installation.deleteMany({ where: { id: installationId } })).count > 0;
  }

  async deleteApp(tx: TransactionClient, appId: bigint): Promise<void> {
    await tx.app.delete({ where: { id: appId } });
  }

  /** Locks the app's row in `tx` (a write that changes nothing, the same SQL on both providers). */
  /**
   * Locks the installation's row in the caller's transaction; false when it is gone. Whatever changes
   * an installation's tokens (a refresh, an uninstall, a cancel) takes this lock first, so they run
   * one after the other and always in the same order of locks (no deadlock between them).
   */
  async lockInstallation(tx: TransactionClient, installationId: bigint): Promise<boolean> {
    return (await tx.$executeRaw`UPDATE installations SET updated_at = updated_at WHERE id = ${installationId}`) > 0;
  }

  async lockApp(tx: TransactionClient, appId: bigint): Promise<void> {
    await tx.$executeRaw`UPDATE apps SET updated_at = updated_at WHERE id = ${appId}`;
  }

  appByKey(appKey: string): Promise<App | null> {
    return this.db.prisma.app.findUnique({ where: { appKey } });
  }

  appById(id: bigint): Promise<App | null> {
    return this.db.prisma.app.findUnique({ where: { id } });
  }

  /** docs/decisions.md: a custom app belongs to the store of its first approval; false if another store has it. */
  async bindCustomApp(appId: bigint, storeId: bigint): Promise<boolean> {
    const bound = await this.db.prisma.app.updateMany({
      where: { id: appId, kind: 'custom', OR: [{ storeId: null }, { storeId }] },
      data: { storeId },
    });
    return bound.count === 1;
  }
}
