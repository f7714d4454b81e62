import { Injectable } from '@nestjs/common';
import type { WebhookAttempt, WebhookDelivery } from '@platform/db';
import { DELIVERY_STATUSES, DomainError, formatInZone } from '@platform/domain';
import { ClockService } from '../core/clock.service';
import type { Config } from '../config';
import { InjectConfig } from '../core/injection';
import { pathId } from '../http/ids';
import { readPageRequest, renderKeysetPage, type PageQuery, type RenderedPage } from '../http/keyset-pagination';
import { StoresService } from '../stores/stores.service';
import { DeliveriesRepository, type DeliveryDetails } from './deliveries.repository';

export interface DeliveryListQuery extends PageQuery {
  status?: string;
}

function attemptJson(a: WebhookAttempt, timeZone: string) {
  return {
    number: a.number,
    started_at: formatInZone(a.startedAt, timeZone),
    duration_ms: a.durationMs,
    response_status: a.responseStatus,
    error: a.error,
    response_body: a.responseBody,
  };
}

/** The `delivery` object of the operator API (decisions §10), times in the store's zone; the merchant's deliveries page shows it too. */
export function deliveryJson(d: WebhookDelivery, details: DeliveryDetails, timeZone: string) {
  return {
    id: d.id.toString(),
    webhook_id: d.webhookId,
    subscription_id: d.subscriptionId.toString(),
    app_id: d.appId.toString(),
    topic: d.topic as 'inventory_items/update' | 'fulfillment_order/released',
    address: details.addresses.get(d.subscriptionId) ?? null,
    api_version: d.apiVersion,
    status: d.status as 'pending' | 'delivered' | 'failed',
    attempt_count: d.attempts,
    next_attempt_at: formatInZone(d.nextAttemptAt, timeZone),
    triggered_at: formatInZone(d.triggeredAt, timeZone),
    delivered_at: d.deliveredAt ? formatInZone(d.deliveredAt, timeZone) : null,
    last_error: d.lastError,
    body: d.body,
    created_at: formatInZone(d.createdAt, timeZone),
    updated_at: formatInZone(d.updatedAt, timeZone),
    attempts: (details.attempts.get(d.id) ?? []).map((a) => attemptJson(a, timeZone)),
  };
}

/** decisions §10: the operator's view of a store's webhook deliveries, and redelivery of a failed one. */
@Injectable()
export class DeliveriesService {
  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly stores: StoresService,
    private readonly clock: ClockService,
    @InjectConfig() private readonly config: Config,
  ) {}

  async list(handle: string, query: DeliveryListQuery, pageUrl: string): Promise<RenderedPage> {
    const store = await this.stores.get(handle);
    const scope = { r: 'webhook_deliveries', s: store.id.toString() };
    const request = readPageRequest(query, scope, this.config, (): Record<string, string> => {
      if (query.status === undefined) return {};
      if (!(DELIVERY_STATUSES as readonly string[]).includes(query.status)) {
        throw new DomainError('INVALID_PARAMETER', `status: is not included in the list (${DELIVERY_STATUSES.join(', ')})`);
      }
      return { status: query.status };
    });
    let details: DeliveryDetails = { attempts: new Map(), addresses: new Map() };
    return renderKeysetPage(request, 'deliveries', scope, this.config.secret, pageUrl, {
      fetch: async (take) => {
        const rows = await this.repository.page({
          storeId: store.id,
          status: request.filters['status'],
          direction: request.direction,
          boundary: BigInt(request.boundary),
          sinceId: BigInt(request.sinceId),
          take,
        });
        details = await this.repository.details(rows);
        return rows;
      },
      idOf: (row) => row.id.toString(),
      render: (row) => JSON.stringify(deliveryJson(row, details, store.ianaTimezone)),
      tooLarge: (row) => `Delivery ${row.id.toString()} alone exceeds the 8 MB response limit`,
    });
  }

  /** An app's newest deliveries on a store with their attempts, newest first (the merchant's deliveries page). */
  async recentForApp(store: { id: bigint; ianaTimezone: string }, appId: bigint, take: number): Promise<ReturnType<typeof deliveryJson>[]> {
    const rows = await this.repository.recentForApp(store.id, appId, take);
    const details = await this.repository.details(rows);
    return rows.map((row) => deliveryJson(row, details, store.ianaTimezone));
  }

  /** The app a delivery of the store belongs to (undefined: no such delivery there). */
  appOf(storeId: bigint, id: bigint): Promise<bigint | undefined> {
    return this.repository.appOf(storeId, id);
  }

  async redeliver(handle: string, rawId: string) {
    const store = await this.stores.get(handle);
    const outcome = await this.repository.redeliver(store.id, pathId(rawId), this.clock.now());
    if (outcome.ok) {
      const details = await this.repository.details([outcome.delivery]);
      return deliveryJson(outcome.delivery, details, store.ianaTimezone);
    }
    if (outcome.reason === 'missing') throw new DomainError('NOT_FOUND', 'Delivery not found');
    if (outcome.reason === 'status') {
      throw new DomainError('VALIDATION_FAILED', `status: only a failed delivery can be redelivered (this one is ${outcome.status})`);
    }
    throw new DomainError(
      'VALIDATION_FAILED',
      outcome.status === null
        ? 'subscription: the subscription of this delivery was removed'
        : 'subscription: the subscription of this delivery is disabled; enable it first',
    );
  }
}
