import { Injectable } from '@nestjs/common';
import type { Db, TransactionClient, WebhookSubscription } from '@platform/db';
import { nextUpdatedAt } from '@platform/domain';
import { InjectDb } from '../core/injection';
import { storage } from '../core/prisma-errors';

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

/**
 * Deliveries a sender is POSTing now (a live claim with its host set: counted against the caps,
 * docs/webhooks-sender.md) are left to that sender, which records the attempt it made: a removal
 * that failed them threw away an answer the receiver had given (recorded as failed, with no
 * attempt, though delivered), and freed their slots while their POSTs were still open (the host's
 * cap was passed). If the attempt failed, the retry finds the subscription gone and ends failed.
 * A held delivery (claimed, not started: no host) is failed like any other; a claim starts none of
 * them after that, though a hand-over at the end of an attempt of the same subscription may (it
 * starts its successor before writing anything; that write is then fenced out). Leases are in real
 * time.
 */
function notInFlight() {
  return { NOT: { AND: [{ leaseHost: { not: null } }, { leaseUntil: { gt: new Date() } }] } };
}

/** Subscriptions are owned by (store, app): every read and write is scoped to both. */
@Injectable()
export class WebhooksRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  /**
   * An app's subscriptions on a store go, its pending deliveries there end `failed` (in the removal's
   * transaction), except those in flight (notInFlight).
   */
  async removeForApp(tx: TransactionClient, removal: { storeId: bigint; appId: bigint; now: Date; reason: string }): Promise<void> {
    const { storeId, appId, now, reason } = removal;
    await tx.webhookSubscription.deleteMany({ where: { storeId, appId } });
    await tx.webhookDelivery.updateMany({
      where: { storeId, appId, status: 'pending', ...notInFlight() },
      data: { status: 'failed', lastError: reason, leaseOwner: null, leaseUntil: null, updatedAt: now },
    });
  }

  /**
   * Null when the app has `max` subscriptions on the store already (decisions §11.7). The app's row
   * is locked first (`lockApp`: the apps room's, in this transaction), so concurrent creates count
   * one after the other and never pass the limit together. A duplicate (store, app, topic, address)
   * fails on the unique index (StorageConflict 'unique').
   */
  create(
    data: SubscriptionData,
    now: Date,
    max: number,
    lockApp: (tx: TransactionClient) => Promise<void>,
  ): Promise<WebhookSubscription | null> {
    return storage(
      this.db.prisma.$transaction(async (tx) => {
        await lockApp(tx);
        const count = await tx.webhookSubscription.count({ where: { storeId: data.storeId, appId: data.appId } });
        if (count >= max) return null;
        return tx.webhookSubscription.create({ data: { ...data, createdAt: now, updatedAt: now } });
      }),
    );
  }

  find(storeId: bigint, appId: bigint, id: bigint): Promise<WebhookSubscription | null> {
    return this.db.prisma.webhookSubscription.findFirst({ where: { id, storeId, appId } });
  }

  /**
   * One transaction on the locked row (an update that changes nothing, plain SQL on both
   * providers): the row is read, `merge` gives the changes from it as it is now, and they are
   * written with `updated_at` past the stored one. So two PUTs at once apply one after the other,
   * neither undoes the other's fields, each moves `updated_at`, and each answers its own write; a
   * re-enable is judged on the status as the sender last left it. Null when the subscription is not
   * (or no longer) the app's on the store. A clash with another subscription fails with StorageConflict 'unique'.
   */
  update(
    key: { storeId: bigint; appId: bigint; id: bigint },
    merge: (row: WebhookSubscription) => SubscriptionChanges,
    now: Date,
  ): Promise<WebhookSubscription | null> {
    return storage(
      this.db.prisma.$transaction(async (tx) => {
        const locked = await tx.$executeRaw`UPDATE webhook_subscriptions SET updated_at = updated_at
        WHERE id = ${key.id} AND store_id = ${key.storeId} AND app_id = ${key.appId}`;
        if (locked === 0) return null;
        const row = await tx.webhookSubscription.findUniqueOrThrow({ where: { id: key.id } });
        const changes = merge(row);
        return tx.webhookSubscription.update({
          where: { id: key.id },
          data: {
            topic: changes.topic,
            address: changes.address,
            apiVersion: changes.apiVersion,
            status: changes.status,
            updatedAt: nextUpdatedAt(row.updatedAt, now),
            ...(changes.reenabled ? { failureStreak: 0, disabledReason: null } : {}),
            ...(changes.disabledByApp ? { disabledReason: 'api' } : {}),
          },
        });
      }),
    );
  }

  /**
   * Removes the subscription; its pending deliveries end as failed (nothing is left to send them
   * to), in the same transaction, except those in flight (notInFlight). False when it was already gone.
   */
  remove(row: WebhookSubscription, now: Date): Promise<boolean> {
    return this.db.prisma.$transaction(async (tx) => {
      const deleted = await tx.webhookSubscription.deleteMany({ where: { id: row.id, storeId: row.storeId, appId: row.appId } });
      if (deleted.count === 0) return false;
      await tx.webhookDelivery.updateMany({
        where: { subscriptionId: row.id, status: 'pending', ...notInFlight() },
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
