import { Controller, Req, Res } from '@nestjs/common';
import { operatorWebhooksContract as routes } from '@platform/contract';
import { TsRestHandler, tsRestHandler } from '@ts-rest/nest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { rawJson, requestPageUrl } from '../http/raw-json';
import { DeliveriesService } from './deliveries.service';

/** Operator API (decisions §10): a store's webhook deliveries, and redelivery of a failed one. */
@Controller()
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

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
