import { Controller, Req, Res } from '@nestjs/common';
import { adminContract } from '@platform/contract';
import { TsRestHandler, tsRestHandler } from '@ts-rest/nest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { rawJson, requestPageUrl } from '../http/raw-json';
import { WebhooksService } from './webhooks.service';

/** Admin API: webhook subscriptions (decisions §11.1), also answered at /{id}/webhooks.json. */
@Controller()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @TsRestHandler(adminContract.createWebhook)
  create(@Req() request: FastifyRequest) {
    return tsRestHandler(adminContract.createWebhook, async ({ body }) => ({
      status: 201 as const,
      body: { webhook: await this.webhooks.create(request.auth!, body.webhook, request.apiVersion!) },
    }));
  }

  @TsRestHandler(adminContract.listWebhooks)
  list(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return tsRestHandler(adminContract.listWebhooks, async ({ query }) => {
      const page = await this.webhooks.list(request.auth!, query, requestPageUrl(request));
      if (page.link) void reply.header('link', page.link);
      return { status: 200 as const, body: rawJson(page.json) };
    });
  }

  @TsRestHandler(adminContract.getWebhook)
  get(@Req() request: FastifyRequest) {
    return tsRestHandler(adminContract.getWebhook, async ({ params }) => ({
      status: 200 as const,
      body: { webhook: await this.webhooks.get(request.auth!, params.id) },
    }));
  }

  @TsRestHandler(adminContract.updateWebhook)
  update(@Req() request: FastifyRequest) {
    return tsRestHandler(adminContract.updateWebhook, async ({ params, body }) => ({
      status: 200 as const,
      body: { webhook: await this.webhooks.update(request.auth!, params.id, body.webhook) },
    }));
  }

  @TsRestHandler(adminContract.deleteWebhook)
  remove(@Req() request: FastifyRequest) {
    return tsRestHandler(adminContract.deleteWebhook, async ({ params }) => {
      await this.webhooks.remove(request.auth!, params.id);
      return { status: 200 as const, body: {} };
    });
  }

  @TsRestHandler(adminContract.getWebhookAlias)
  getAlias(@Req() request: FastifyRequest) {
    return tsRestHandler(adminContract.getWebhookAlias, async ({ params }) => ({
      status: 200 as const,
      body: { webhook: await this.webhooks.get(request.auth!, params.id) },
    }));
  }

  @TsRestHandler(adminContract.updateWebhookAlias)
  updateAlias(@Req() request: FastifyRequest) {
    return tsRestHandler(adminContract.updateWebhookAlias, async ({ params, body }) => ({
      status: 200 as const,
      body: { webhook: await this.webhooks.update(request.auth!, params.id, body.webhook) },
    }));
  }

  @TsRestHandler(adminContract.deleteWebhookAlias)
  removeAlias(@Req() request: FastifyRequest) {
    return tsRestHandler(adminContract.deleteWebhookAlias, async ({ params }) => {
      await this.webhooks.remove(request.auth!, params.id);
      return { status: 200 as const, body: {} };
    });
  }
}
