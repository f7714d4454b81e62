import { Injectable } from '@nestjs/common';
import { readDeliveryCounts, wakeSenders, type Db, type WebhookAttempt, type WebhookDelivery } from '@platform/db';
import { DELIVERY_STATUSES } from '@platform/domain';
import { InjectDb } from '../core/injection';

export interface DeliveryPageQuery {
  storeId: bigint;
  status: string | undefined;
  direction: 'next' | 'prev';
  boundary: bigint;
  sinceId: bigint;
  take: number;
}

export interface DeliveryDetails {
  attempts: Map<bigint, WebhookAttempt[]>;
  /** subscription id -> address, for the subscriptions that still exist */
  addresses: Map<bigint, string>;
}

export type RedeliverOutcome =
  | { ok: true; delivery: WebhookDelivery }
  | { ok: false; reason: 'missing' }
  | { ok: false; reason: 'status'; status: string }
  | { ok: false; reason: 'subscription'; status: string | null };

export interface QueueStats {
  byStatus: Map<string, number>;
  oldestDueAt: Date | null;
  /** Subscriptions by status and, when disabled, why (`enabled:`, `disabled:failures`, ...). */
  subscriptions: Map<string, number>;
}

/** The operator's view of the outbox (decisions §10, §11.6) and the numbers /metrics shows. */
@Injectable()
export class DeliveriesRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  /**
   * Keyset page on (store_id, status, id), nearest to the boundary first. Without a status filter,
   * one read per status, each the page's length at most, merged by id (issue 48): the index orders a
   * store's deliveries by status first, so one read ordered by id sorted every delivery of the store
   * (a history that grows without end) to answer a page.
   */
  async page(q: DeliveryPageQuery): Promise<WebhookDelivery[]> {
    const next = q.direction === 'next';
    const read = (status: string) =>
      this.db.prisma.webhookDelivery.findMany({
        where: { storeId: q.storeId, status, id: next ? { gt: q.boundary } : { lt: q.boundary, gt: q.sinceId } },
        orderBy: { id: next ? 'asc' : 'desc' },
        take: q.take,
      });
    if (q.status !== undefined) return read(q.status);
    const parts = await Promise.all(DELIVERY_STATUSES.map(read));
    const merged = parts.flat().sort((a, b) => (a.id === b.id ? 0 : a.id < b.id === next ? -1 : 1));
    return merged.slice(0, q.take);
  }

  /** An app's newest deliveries on a store, newest first (the merchant's deliveries page, docs/webhooks.md). */
  recentForApp(storeId: bigint, appId: bigint, take: number): Promise<WebhookDelivery[]> {
    return this.db.prisma.webhookDelivery.findMany({ where: { storeId, appId }, orderBy: { id: 'desc' }, take });
  }

  /** The app a delivery of this store is for; undefined when the store has no such delivery. */
  async appOf(storeId: bigint, id: bigint): Promise<bigint | undefined> {
    const row = await this.db.prisma.webhookDelivery.findFirst({ where: { id, storeId }, select: { appId: true } });
    return row?.appId;
  }

  async details(deliveries: readonly WebhookDelivery[]): Promise<DeliveryDetails> {
    const ids = deliveries.map((d) => d.id);
    const subscriptionIds = [...new Set(deliveries.map((d) => d.subscriptionId))];
    const [attemptRows, subscriptions] = await Promise.all([
      ids.length ? this.db.prisma.webhookAttempt.findMany({ where: { deliveryId: { in: ids } }, orderBy: { id: 'asc' } }) : [],
      subscriptionIds.length
        ? this.db.prisma.webhookSubscription.findMany({ where: { id: { in: subscriptionIds } }, select: { id: true, address: true } })
        : [],
    ]);
    const attempts = new Map<bigint, WebhookAttempt[]>();
    for (const attempt of attemptRows) {
      const list = attempts.get(attempt.deliveryId) ?? [];
      list.push(attempt);
      attempts.set(attempt.deliveryId, list);
    }
    return { attempts, addresses: new Map(subscriptions.map((s) => [s.id, s.address])) };
  }

  /**
   * failed -> pending, due now, with a fresh round of attempts (attempts 0, lease and last error
   * cleared), as one conditional write: of two redeliveries at once, one succeeds.
   */
  async redeliver(storeId: bigint, id: bigint, now: Date): Promise<RedeliverOutcome> {
    const outcome = await this.db.prisma.$transaction(async (tx): Promise<RedeliverOutcome> => {
      const current = await tx.webhookDelivery.findFirst({ where: { id, storeId } });
      if (!current) return { ok: false, reason: 'missing' } as const;
      if (current.status !== 'failed') return { ok: false, reason: 'status', status: current.status } as const;
      const subscription = await tx.webhookSubscription.findFirst({ where: { id: current.subscriptionId }, select: { status: true } });
      if (subscription?.status !== 'enabled') return { ok: false, reason: 'subscription', status: subscription?.status ?? null } as const;
      const moved = await tx.webhookDelivery.updateMany({
        where: { id, storeId, status: 'failed' },
        data: {
          status: 'pending',
          attempts: 0,
          nextAttemptAt: now,
          leaseOwner: null,
          leaseUntil: null,
          leaseHost: null,
          lastError: null,
          deliveredAt: null,
          updatedAt: now,
        },
      });
      if (moved.count === 0) return { ok: false, reason: 'status', status: 'pending' } as const;
      return { ok: true, delivery: await tx.webhookDelivery.findUniqueOrThrow({ where: { id } }) } as const;
    });
    // Due now and committed: the senders are woken rather than left to their poll.
    if (outcome.ok) await wakeSenders(this.db);
    return outcome;
  }

  /**
   * Counts by status and the oldest pending delivery already due, across every store, and the
   * subscriptions by status. The delivery counts are the ones the database keeps (issue 48,
   * packages/db delivery-counts.ts), a few rows, not a count over the whole history; the oldest due
   * one is the first entry of the pending rows' index; subscriptions are few (one table scan).
   */
  async queueStats(now: Date): Promise<QueueStats> {
    const byStatus = await readDeliveryCounts(this.db.query.bind(this.db));
    const oldest = await this.db.query<{ next_attempt_at: Date }>(
      "SELECT next_attempt_at FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT 1",
      [now],
    );
    const subscriptions = await this.db.query<{ status: string; reason: string | null; n: bigint }>(
      'SELECT status, disabled_reason AS reason, COUNT(*) AS n FROM webhook_subscriptions GROUP BY status, disabled_reason',
    );
    return {
      byStatus,
      oldestDueAt: oldest[0] ? new Date(oldest[0].next_attempt_at) : null,
      subscriptions: new Map(subscriptions.map((r) => [`${r.status}:${r.status === 'disabled' ? (r.reason ?? '') : ''}`, Number(r.n)])),
    };
  }
}
