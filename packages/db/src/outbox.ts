import { randomUUID } from 'node:crypto';
import type { Db, TransactionClient } from './client';
import { NOTIFY_SQL, wakeSenders } from './outbox-wake';
import { currentTraceId } from './trace-context';

export interface WebhookEvent {
  storeId: bigint;
  /** `inventory_items/update` | `fulfillment_order/released` */
  topic: string;
  /** The service clock's now: the delivery is triggered and due at this instant. */
  now: Date;
  /** The exact body bytes for a subscription's api_version (decisions §11.3); called once per version. */
  render(apiVersion: string): string;
  /**
   * Whether an app whose installation on the store grants `scopes` may receive the event (the
   * topic's read scope, decisions §5.5). Subscriptions of apps no longer installed get nothing.
   */
  appMayReceive(scopes: readonly string[]): boolean;
}

/**
 * The transactional outbox (decisions §11.6): inside the transaction that writes a change, one
 * `webhook_deliveries` row per enabled subscription of the store to the topic, pending and due now,
 * with a fresh `X-Platform-Webhook-Id`. If the transaction rolls back, so do the rows: no event
 * without its change, no change without its events. Returns how many rows were written.
 */
export async function writeWebhookDeliveries(tx: TransactionClient, event: WebhookEvent): Promise<number> {
  const subscriptions = await tx.webhookSubscription.findMany({
    where: { storeId: event.storeId, topic: event.topic, status: 'enabled' },
    orderBy: { id: 'asc' },
  });
  if (subscriptions.length === 0) return 0;
  const installations = await tx.installation.findMany({
    where: { storeId: event.storeId, appId: { in: [...new Set(subscriptions.map((s) => s.appId))] } },
    select: { appId: true, scopes: true },
  });
  const allowed = new Set(installations.filter((i) => event.appMayReceive(i.scopes.split(',').filter(Boolean))).map((i) => i.appId));
  const bodies = new Map<string, string>();
  const traceId = currentTraceId() ?? null;
  const rows = subscriptions
    .filter((s) => allowed.has(s.appId))
    .map((s) => {
      let body = bodies.get(s.apiVersion);
      if (body === undefined) {
        body = event.render(s.apiVersion);
        bodies.set(s.apiVersion, body);
      }
      return {
        storeId: event.storeId,
        appId: s.appId,
        subscriptionId: s.id,
        topic: event.topic,
        webhookId: randomUUID(),
        apiVersion: s.apiVersion,
        body,
        triggeredAt: event.now,
        traceId,
        status: 'pending',
        attempts: 0,
        nextAttemptAt: event.now,
        createdAt: event.now,
        updatedAt: event.now,
      };
    });
  if (rows.length === 0) return 0;
  const result = await tx.webhookDelivery.createMany({ data: rows });
  return result.count;
}

/** Writes one event's deliveries inside the transaction of `inOutboxTransaction`; returns how many. */
export type EmitWebhookEvent = (event: WebhookEvent) => Promise<number>;

/**
 * `work` in one transaction, with `emit` to write events' deliveries in it (the outbox, decisions
 * §11.6), and the senders woken once it has committed (docs/webhooks-sender.md, "Waking"): on
 * PostgreSQL a NOTIFY issued in the transaction, so it is heard on commit only; on SQLite the wake
 * file touched after the commit. A rollback wakes nobody.
 */
export async function inOutboxTransaction<T>(db: Db, work: (tx: TransactionClient, emit: EmitWebhookEvent) => Promise<T>): Promise<T> {
  let written = 0;
  const result = await db.prisma.$transaction(async (tx) => {
    // On SQLite the transaction holds the write lock from its start (sqlite-adapter.ts, WRITE_LOCK_FIRST), so
    // reading before writing never fails with SQLITE_BUSY when a sender process commits meanwhile.
    return work(tx, async (event) => {
      const count = await writeWebhookDeliveries(tx, event);
      if (count > 0 && written === 0 && db.provider === 'postgresql') await tx.$executeRawUnsafe(NOTIFY_SQL);
      written += count;
      return count;
    });
  });
  if (written > 0 && db.provider === 'sqlite') await wakeSenders(db);
  return result;
}
