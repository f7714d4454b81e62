import { Injectable } from '@nestjs/common';
import type { Db, Store, TransactionClient } from '@platform/db';
import { DomainError, nextUpdatedAt } from '@platform/domain';
import { InjectDb } from '../core/injection';
import { isUniqueViolation } from '../core/prisma-errors';

export type StoreRow = Store;

export interface StoreChanges {
  status?: string;
  planExpiresAt?: Date | null;
  name?: string;
  ianaTimezone?: string;
  currency?: string;
  email?: string;
  customerEmail?: string;
}

/** Stores (decisions §10, §12): the only place their rows are read and written. */
@Injectable()
export class StoresRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  /**
   * One merchant owns one store here, so the merchant id (webhooks' X-Platform-Merchant-Id) is the
   * store's id. A taken handle is 422 (the unique index decides, also between two creates at once).
   */
  async create(data: {
    handle: string;
    name: string;
    ianaTimezone: string;
    currency: string;
    email: string;
    customerEmail: string;
    now: Date;
  }): Promise<StoreRow> {
    const { now, ...fields } = data;
    try {
      return await this.db.prisma.$transaction(async (tx) => {
        const store = await tx.store.create({ data: { ...fields, merchantId: 0n, createdAt: now, updatedAt: now } });
        return tx.store.update({ where: { id: store.id }, data: { merchantId: store.id, updatedAt: now } });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new DomainError('VALIDATION_FAILED', 'handle: has already been taken');
      throw error;
    }
  }

  byHandle(handle: string): Promise<StoreRow | null> {
    return this.db.prisma.store.findUnique({ where: { handle } });
  }

  byId(id: bigint): Promise<StoreRow | null> {
    return this.db.prisma.store.findUnique({ where: { id } });
  }

  /**
   * The changes under the row's lock, so two at once still get two `updated_at`. A changed zone
   * moves the catalog revision too: listing answers carry times in the store's zone.
   */
  update(id: bigint, changes: StoreChanges, now: Date): Promise<StoreRow> {
    return this.db.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`UPDATE stores SET updated_at = updated_at WHERE id = ${id}`;
      if (changes.ianaTimezone !== undefined) await this.bumpCatalogRevision(tx, id);
      const current = await tx.store.findUniqueOrThrow({ where: { id }, select: { updatedAt: true } });
      return tx.store.update({ where: { id }, data: { ...changes, updatedAt: nextUpdatedAt(current.updatedAt, now) } });
    });
  }

  /**
   * The store's catalog revision moves in the transaction of every write the product listing shows
   * (ListingCache). On SQLite this write also takes the one write lock before anything else is read.
   */
  async bumpCatalogRevision(tx: TransactionClient, id: bigint): Promise<void> {
    await tx.$executeRaw`UPDATE stores SET catalog_revision = catalog_revision + 1 WHERE id = ${id}`;
  }
}
