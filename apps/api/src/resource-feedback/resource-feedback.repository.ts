import { Injectable } from '@nestjs/common';
import type { Db } from '@platform/db';
import { nextUpdatedAt } from '@platform/domain';
import { InjectDb } from '../core/injection';
import { storage } from '../core/prisma-errors';

/** A stored row (the model's type, derived here so the db package's export list stays as it is). */
export type FeedbackRow = NonNullable<Awaited<ReturnType<Db['prisma']['resourceFeedback']['findFirst']>>>;

/** One record per (store, app, product) (decisions §9.1). */
export interface FeedbackKey {
  storeId: bigint;
  appId: bigint;
  productId: bigint;
}

/** A feedback as validated by the domain, ready to store. */
export interface FeedbackData {
  state: string;
  messages: string[];
  feedbackGeneratedAt: Date;
  /** As sent: answers echo it. */
  feedbackGeneratedAtText: string;
  resourceUpdatedAt: Date | null;
}

/** The only caller of the database for resource feedback. */
@Injectable()
export class ResourceFeedbackRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  find(key: FeedbackKey): Promise<FeedbackRow | null> {
    return this.db.prisma.resourceFeedback.findUnique({ where: { storeId_appId_productId: key } });
  }

  /**
   * The first feedback of this app on this product. StorageConflict 'unique' when another request
   * stored it first, 'reference' when the product or the installation was deleted meanwhile.
   */
  create(key: FeedbackKey, installationId: bigint, data: FeedbackData, now: Date): Promise<FeedbackRow> {
    return storage(
      this.db.prisma.resourceFeedback.create({ data: { ...key, installationId, ...stored(data), createdAt: now, updatedAt: now } }),
    );
  }

  /**
   * Replaces the stored feedback unless `isStale(stored)` says the incoming one is older (decisions
   * §9.4), deciding on the row as it is under a lock: an update that changes nothing locks it on
   * both providers (plain SQL), so two requests at once are decided one after the other, each
   * against what the other stored. Returns the row as it is after the decision.
   */
  async replaceUnlessStale(
    key: FeedbackKey,
    data: FeedbackData,
    now: Date,
    isStale: (stored: FeedbackRow) => boolean,
  ): Promise<{ row: FeedbackRow; replaced: boolean } | undefined> {
    return this.db.prisma.$transaction(async (tx) => {
      const locked = await tx.$executeRaw`UPDATE resource_feedback SET updated_at = updated_at
        WHERE store_id = ${key.storeId} AND app_id = ${key.appId} AND product_id = ${key.productId}`;
      if (locked === 0) return undefined;
      const current = await tx.resourceFeedback.findUniqueOrThrow({ where: { storeId_appId_productId: key } });
      // A stale feedback is ignored; one equal to the stored feedback changes nothing (not even updated_at).
      if (isStale(current) || sameFeedback(current, data)) return { row: current, replaced: false };
      const row = await tx.resourceFeedback.update({
        where: { id: current.id },
        data: { ...stored(data), updatedAt: nextUpdatedAt(current.updatedAt, now) },
      });
      return { row, replaced: true };
    });
  }
}

function stored(data: FeedbackData) {
  return {
    state: data.state,
    messages: JSON.stringify(data.messages),
    feedbackGeneratedAt: data.feedbackGeneratedAt,
    feedbackGeneratedAtText: data.feedbackGeneratedAtText,
    resourceUpdatedAt: data.resourceUpdatedAt,
  };
}

function sameFeedback(row: FeedbackRow, data: FeedbackData): boolean {
  return (
    row.state === data.state &&
    row.messages === JSON.stringify(data.messages) &&
    row.feedbackGeneratedAt.getTime() === data.feedbackGeneratedAt.getTime() &&
    // The same instant spelled otherwise is stored, so the answer echoes this request's spelling.
    row.feedbackGeneratedAtText === data.feedbackGeneratedAtText &&
    (row.resourceUpdatedAt?.getTime() ?? null) === (data.resourceUpdatedAt?.getTime() ?? null)
  );
}
