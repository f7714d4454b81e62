import type { Db } from '@platform/db';
import type { AttemptResult } from './deliver';
import type { Outcome } from './schedule';

/** decisions §11.5: this many failed deliveries in a row disable the subscription. */
export const DISABLE_AFTER_FAILED_DELIVERIES = 8;

/** Why a delivery is failed without an attempt when its subscription is no longer enabled. */
export const SUBSCRIPTION_DISABLED = 'subscription disabled';
export const SUBSCRIPTION_DELETED = 'subscription deleted';

export interface RecordInput {
  deliveryId: bigint;
  subscriptionId: bigint;
  owner: string;
  /** the attempt's number (1 for the first) */
  attempt: number;
  startedAt: Date;
  result: AttemptResult;
  outcome: Outcome;
  /** service clock */
  now: Date;
}

export interface Recorded {
  /** false when the claim was no longer ours (it expired and was taken over): nothing was written */
  written: boolean;
  /** the subscription was disabled by this attempt (410, or the 8th failed delivery in a row) */
  disabled: 'gone' | 'failures' | undefined;
}

/**
 * One attempt's record and its consequences in one transaction (decisions §11.5-§11.6): the
 * delivery's new state (fenced on the claim), the attempt row, the subscription's failure streak and,
 * when it disables the subscription, its other pending deliveries that nobody holds marked failed
 * (docs/webhooks-sender.md). The first statement writes, so on SQLite the transaction takes the write
 * lock at once (a read first could fail with SQLITE_BUSY when another process writes).
 */
export async function recordAttempt(db: Db, input: RecordInput): Promise<Recorded> {
  const { result, outcome, now } = input;
  return db.prisma.$transaction(
    async (tx) => {
      const realNow = new Date();
      const fenced = await tx.webhookDelivery.updateMany({
        where: { id: input.deliveryId, leaseOwner: input.owner, status: 'pending' },
        data: {
          attempts: input.attempt,
          status: outcome.kind === 'retry' ? 'pending' : outcome.kind,
          ...(outcome.kind === 'retry' ? { nextAttemptAt: outcome.nextAttemptAt } : {}),
          deliveredAt: outcome.kind === 'delivered' ? now : null,
          lastError: result.error,
          leaseOwner: null,
          leaseUntil: null,
          updatedAt: now,
        },
      });
      if (fenced.count !== 1) return { written: false, disabled: undefined };
      await tx.webhookAttempt.create({
        data: {
          deliveryId: input.deliveryId,
          number: input.attempt,
          startedAt: input.startedAt,
          durationMs: result.durationMs,
          responseStatus: result.status,
          error: result.error,
          responseBody: result.responseBody,
          createdAt: now,
        },
      });
      if (outcome.kind === 'retry') return { written: true, disabled: undefined };
      if (outcome.kind === 'delivered') {
        await tx.webhookSubscription.updateMany({ where: { id: input.subscriptionId, failureStreak: { not: 0 } }, data: { failureStreak: 0 } });
        return { written: true, disabled: undefined };
      }
      const sub = await tx.webhookSubscription.update({
        where: { id: input.subscriptionId },
        data: { failureStreak: { increment: 1 } },
        select: { failureStreak: true, status: true },
      }).catch(() => undefined); // deleted meanwhile
      const reason = outcome.gone ? 'gone' : sub && sub.failureStreak >= DISABLE_AFTER_FAILED_DELIVERIES ? 'failures' : undefined;
      if (!sub || sub.status !== 'enabled' || !reason) return { written: true, disabled: undefined };
      await tx.webhookSubscription.update({
        where: { id: input.subscriptionId },
        data: { status: 'disabled', disabledReason: reason, updatedAt: now },
      });
      await tx.webhookDelivery.updateMany({
        where: { subscriptionId: input.subscriptionId, status: 'pending', OR: [{ leaseUntil: null }, { leaseUntil: { lt: realNow } }] },
        data: { status: 'failed', lastError: SUBSCRIPTION_DISABLED, leaseOwner: null, leaseUntil: null, updatedAt: now },
      });
      return { written: true, disabled: reason };
    },
    { timeout: 30_000, maxWait: 30_000 },
  );
}

/** A claimed delivery whose subscription is disabled or deleted: failed without an attempt. */
export async function failWithoutAttempt(db: Db, deliveryId: bigint, owner: string, reason: string, now: Date): Promise<boolean> {
  const done = await db.prisma.webhookDelivery.updateMany({
    where: { id: deliveryId, leaseOwner: owner, status: 'pending' },
    data: { status: 'failed', lastError: reason, leaseOwner: null, leaseUntil: null, updatedAt: now },
  });
  return done.count === 1;
}
