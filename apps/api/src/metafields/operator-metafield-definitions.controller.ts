import { Controller, Req, Res } from '@nestjs/common';
import { operatorMetafieldDefinitionsContract as routes } from '@platform/contract';
import { TsRestHandler, tsRestHandler } from '@ts-rest/nest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { rawJson, requestPageUrl } from '../http/raw-json';
import { StoresService } from '../stores/stores.service';
import { MetafieldDefinitionsService } from './metafield-definitions.service';
import { MetaobjectsService } from './metaobjects.service';

/**
 * Operator API (decisions §10): the merchant's view of definitions; metaobject definitions and
 * metaobjects (§8.14). One method per route: with a router-wide handler, taking the request and
 * reply (which the listing needs for its link header) left requests unanswered.
 */
@Controller()
export class OperatorMetafieldDefinitionsController {
  constructor(
    private readonly stores: StoresService,
    private readonly definitions: MetafieldDefinitionsService,
    private readonly metaobjects: MetaobjectsService,
  ) {}

  @TsRestHandler(routes.listMerchantMetafieldDefinitions)
  listForMerchant(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return tsRestHandler(routes.listMerchantMetafieldDefinitions, async ({ params, query }) => {
      const store = await this.stores.get(params.handle);
      const page = await this.definitions.listForMerchant(store, query, requestPageUrl(request));
      if (page.link) void reply.header('link', page.link);
      return { status: 200 as const, body: rawJson(page.json) };
    });
  }

  @TsRestHandler(routes.createMetaobjectDefinition)
  createMetaobjectDefinition() {
    return tsRestHandler(routes.createMetaobjectDefinition, async ({ params, body }) => ({
      status: 201 as const,
      body: { metaobject_definition: await this.metaobjects.createDefinition(params.handle, body.metaobject_definition) },
    }));
  }

  @TsRestHandler(routes.createMetaobject)
  createMetaobject() {
    return tsRestHandler(routes.createMetaobject, async ({ params, body }) => ({
      status: 201 as const,
      body: { metaobject: await this.metaobjects.createMetaobject(params.handle, params.id, body.metaobject) },
    }));
  }
}
