import { Injectable } from '@nestjs/common';
import type { ResourceFeedbackInput } from '@platform/contract';
import { DomainError, formatInZone, isStaleFeedback, joinIssues, validateFeedback } from '@platform/domain';
import { ClockService } from '../core/clock.service';
import { isConflict } from '../core/prisma-errors';
import type { AuthContext } from '../access/request-context';
import { ProductsService } from '../products/products.service';
import { StoresService } from '../stores/stores.service';
import { ProductFeedbackReadModel } from './product-feedback.read-model';
import { ResourceFeedbackRepository, type FeedbackData, type FeedbackKey, type FeedbackRow } from './resource-feedback.repository';

const PRODUCT_NOT_FOUND = 'Product not found';

/** The response object of the spec's "Product resource feedback" table. */
export function renderFeedback(row: FeedbackRow, productUpdatedAt: Date, timeZone: string) {
  return {
    resource_id: row.productId.toString(),
    resource_type: 'Product' as const,
    state: row.state as 'require_actions' | 'success',
    messages: messagesOf(row.messages),
    // The spec: "Echo of the request value", exactly as sent (docs/decisions.md, Resource feedback).
    feedback_generated_at: row.feedbackGeneratedAtText ?? formatInZone(row.feedbackGeneratedAt, timeZone),
    // decisions §9.5: the product's current updated_at, not the one the app sent.
    resource_updated_at: formatInZone(productUpdatedAt, timeZone),
    created_at: formatInZone(row.createdAt, timeZone),
    updated_at: formatInZone(row.updatedAt, timeZone),
  };
}
export type RenderedFeedback = ReturnType<typeof renderFeedback>;
export type RenderedFeedbackWithApp = RenderedFeedback & { app: { id: string; name: string } };

function messagesOf(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((m): m is string => typeof m === 'string') : [];
  } catch {
    return [];
  }
}

/** Product resource feedback (spec "Product resource feedback"; decisions §9). */
@Injectable()
export class ResourceFeedbackService {
  constructor(
    private readonly repository: ResourceFeedbackRepository,
    private readonly withApps: ProductFeedbackReadModel,
    private readonly stores: StoresService,
    private readonly products: ProductsService,
    private readonly clock: ClockService,
  ) {}

  /**
   * Stores an app's feedback on a product: `created` for its first (201), otherwise the stored one
   * is replaced, or kept when the incoming one is stale (both 200, decisions §9.4). The body's
   * rules come first (422), then the product (404), as on every route (docs/decisions.md).
   */
  async submit(
    auth: AuthContext,
    productId: bigint,
    input: ResourceFeedbackInput,
  ): Promise<{ created: boolean; feedback: RenderedFeedback }> {
    const result = validateFeedback(input, 'resource_feedback.');
    if (!result.ok) throw new DomainError('VALIDATION_FAILED', joinIssues(result.issues));
    const valid = result.value;
    const productUpdatedAt = await this.products.updatedAt(auth.store.id, productId);
    if (productUpdatedAt === undefined) throw new DomainError('NOT_FOUND', PRODUCT_NOT_FOUND);
    const key: FeedbackKey = { storeId: auth.store.id, appId: auth.appId, productId };
    const data: FeedbackData = {
      state: valid.state,
      messages: valid.messages,
      feedbackGeneratedAt: valid.generatedAt,
      feedbackGeneratedAtText: input.feedback_generated_at,
      resourceUpdatedAt: valid.resourceUpdatedAt,
    };
    const render = (row: FeedbackRow) => renderFeedback(row, productUpdatedAt, auth.store.ianaTimezone);
    const now = this.clock.now();

    if (!(await this.repository.find(key))) {
      try {
        return { created: true, feedback: render(await this.repository.create(key, auth.installationId, data, now)) };
      } catch (error) {
        // Another request stored this app's first feedback meanwhile: decide against it below.
        if (!isConflict(error, 'unique')) throw this.goneOr(error);
      }
    }
    const incoming = { generatedAt: valid.generatedAt, resourceUpdatedAt: valid.resourceUpdatedAt };
    const outcome = await this.repository.replaceUnlessStale(key, data, now, (stored) =>
      isStaleFeedback(incoming, { generatedAt: stored.feedbackGeneratedAt, resourceUpdatedAt: stored.resourceUpdatedAt }),
    );
    // The stored feedback vanished between the two steps: its product or installation was deleted.
    if (!outcome) throw new DomainError('NOT_FOUND', PRODUCT_NOT_FOUND);
    return { created: false, feedback: render(outcome.row) };
  }

  /**
   * Every installed app's feedback on one product of a store, with the app (decisions §10): the
   * operator API's view, and the read a merchant page listing a product's feedback calls.
   */
  async listForProduct(store: { id: bigint; ianaTimezone: string }, productId: bigint): Promise<RenderedFeedbackWithApp[]> {
    const productUpdatedAt = await this.products.updatedAt(store.id, productId);
    if (productUpdatedAt === undefined) throw new DomainError('NOT_FOUND', PRODUCT_NOT_FOUND);
    const rows = await this.withApps.listForProduct(store.id, productId);
    return rows.map((row) => ({
      ...renderFeedback(row, productUpdatedAt, store.ianaTimezone),
      app: { id: row.app.id.toString(), name: row.app.name },
    }));
  }

  /** The operator API's form: the store by its handle (404 when unknown). */
  async listForStoreProduct(handle: string, productId: bigint): Promise<RenderedFeedbackWithApp[]> {
    return this.listForProduct(await this.stores.get(handle), productId);
  }

  /** A foreign key refused the row: the product (or the app's installation) was deleted meanwhile. */
  private goneOr(error: unknown): unknown {
    return isConflict(error, 'reference') ? new DomainError('NOT_FOUND', PRODUCT_NOT_FOUND) : error;
  }
}
