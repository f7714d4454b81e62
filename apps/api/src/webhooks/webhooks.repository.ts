import { Injectable } from '@nestjs/common';
import type { Db, WebhookSubscription } from '@platform/db';
import { InjectDb } from '../db/db.module';

export interface SubscriptionData {
  storeId: bigint;
  appId: bigint;
  topic: string;
  address: string;
  apiVersion: string;
  status: string;
}

export interface SubscriptionChanges {
  topic: string;
  address: string;
  apiVersion: string;
  status: string;
  /** Re-enabled: the failure streak and the reason it was disabled are cleared (decisions §11.5). */
  reenabled: boolean;
  /** Disabled by the app itself. */
  disabledByApp: boolean;
}

export interface SubscriptionPageQuery {
  storeId: bigint;
  appId: bigint;
  topics: readonly string[];
  direction: 'next' | 'prev';
  boundary: bigint;
  sinceId: bigint;
  take: number;
}

/** Subscriptions are owned by (store, app): every read and write is scoped to both. */
@Injectable()
export class WebhooksRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  /** A duplicate (store, app, topic, address) fails on the unique index (P2002). */
  create(data: SubscriptionData, now: Date): Promise<WebhookSubscription> {
    return this.db.prisma.webhookSubscription.create({ data: { ...data, createdAt: now, updatedAt: now } });
  }

  find(storeId: bigint, appId: bigint, id: bigint): Promise<WebhookSubscription | null> {
    return this.db.prisma.webhookSubscription.findFirst({ where: { id, storeId, appId } });
  }

  /** Null when the row is gone (deleted meanwhile). A clash with another subscription fails with P2002. */
  async update(row: WebhookSubscription, changes: SubscriptionChanges, updatedAt: Date): Promise<WebhookSubscription | null> {
    const result = await this.db.prisma.webhookSubscription.updateMany({
      where: { id: row.id, storeId: row.storeId, appId: row.appId },
      data: {
        topic: changes.topic,
        address: changes.address,
        apiVersion: changes.apiVersion,
        status: changes.status,
        updatedAt,
        ...(changes.reenabled ? { failureStreak: 0, disabledReason: null } : {}),
        ...(changes.disabledByApp ? { disabledReason: 'api' } : {}),
      },
    });
    if (result.count === 0) return null;
    return this.db.prisma.webhookSubscription.findFirst({ where: { id: row.id } });
  }

  /**
   * Removes the subscription; its pending deliveries end as failed (nothing is left to send them
   * to), in the same transaction. False when it was already gone.
   */
  remove(row: WebhookSubscription, now: Date): Promise<boolean> {
    return this.db.prisma.$transaction(async (tx) => {
      const deleted = await tx.webhookSubscription.deleteMany({ where: { id: row.id, storeId: row.storeId, appId: row.appId } });
      if (deleted.count === 0) return false;
      await tx.webhookDelivery.updateMany({
        where: { subscriptionId: row.id, status: 'pending' },
        data: { status: 'failed', lastError: 'subscription removed', leaseOwner: null, leaseUntil: null, updatedAt: now },
      });
      return true;
    });
  }

  /** An app's subscriptions on a store, by id, at most `take` (the merchant's deliveries page). */
  listForApp(storeId: bigint, appId: bigint, take: number): Promise<WebhookSubscription[]> {
    return this.db.prisma.webhookSubscription.findMany({ where: { storeId, appId }, orderBy: { id: 'asc' }, take });
  }

  /** Keyset page on (store_id, app_id, id), nearest to the boundary first. */
  page(q: SubscriptionPageQuery): Promise<WebhookSubscription[]> {
    const next = q.direction === 'next';
    return this.db.prisma.webhookSubscription.findMany({
      where: {
        storeId: q.storeId,
        appId: q.appId,
        topic: { in: [...q.topics] },
        id: next ? { gt: q.boundary } : { lt: q.boundary, gt: q.sinceId },
      },
      orderBy: { id: next ? 'asc' : 'desc' },
      take: q.take,
    });
  }
}
