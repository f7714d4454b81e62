import { Controller, Req, Res } from '@nestjs/common';
import { operatorWebhooksContract as routes } from '@platform/contract';
import { TsRestHandler, tsRestHandler } from '@ts-rest/nest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { rawJson, requestPageUrl } from '../http/raw-json';
import { DeliveriesService } from './deliveries.service';
import { WebhookEventsService } from './webhook-events.service';

/**
 * Operator API (decisions §10): the changes that emit events, and the deliveries. One method per
 * route, as the other operator controllers (the listing needs the request and reply).
 */
@Controller()
export class WebhookEventsController {
  constructor(
    private readonly events: WebhookEventsService,
    private readonly deliveries: DeliveriesService,
  ) {}

  @TsRestHandler(routes.updateInventoryItem)
  updateInventoryItem() {
    return tsRestHandler(routes.updateInventoryItem, async ({ params, body }) => ({
      status: 200 as const,
      body: { inventory_item: await this.events.updateInventoryItem(params.handle, params.id, body.inventory_item) },
    }));
  }

  @TsRestHandler(routes.createFulfillmentOrder)
  createFulfillmentOrder() {
    return tsRestHandler(routes.createFulfillmentOrder, async ({ params }) => ({
      status: 201 as const,
      body: { fulfillment_order: await this.events.createFulfillmentOrder(params.handle) },
    }));
  }

  @TsRestHandler(routes.releaseFulfillmentOrder)
  releaseFulfillmentOrder() {
    return tsRestHandler(routes.releaseFulfillmentOrder, async ({ params }) => ({
      status: 200 as const,
      body: { fulfillment_order: await this.events.releaseFulfillmentOrder(params.handle, params.id) },
    }));
  }

  @TsRestHandler(routes.listWebhookDeliveries)
  listDeliveries(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return tsRestHandler(routes.listWebhookDeliveries, async ({ params, query }) => {
      const page = await this.deliveries.list(params.handle, query, requestPageUrl(request));
      if (page.link) void reply.header('link', page.link);
      return { status: 200 as const, body: rawJson(page.json) };
    });
  }

  @TsRestHandler(routes.redeliverWebhookDelivery)
  redeliver() {
    return tsRestHandler(routes.redeliverWebhookDelivery, async ({ params }) => ({
      status: 200 as const,
      body: { delivery: await this.deliveries.redeliver(params.handle, params.id) },
    }));
  }
}
