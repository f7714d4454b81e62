import { Controller, Req, Res } from '@nestjs/common';
import { operatorMetafieldsContract as routes } from '@platform/contract';
import { TsRestHandler, tsRestHandler } from '@ts-rest/nest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { rawJson, requestPageUrl } from '../http/raw-json';
import { MetafieldListingService } from './metafield-listing.service';

/** Operator API: a store's values with the background re-check's verdicts (decisions §8.12, §10). */
@Controller()
export class MetafieldsOperatorController {
  constructor(private readonly listing: MetafieldListingService) {}

  @TsRestHandler(routes.listStoreMetafields)
  list(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return tsRestHandler(routes.listStoreMetafields, async ({ params, query }) => {
      const page = await this.listing.listForStore(params.handle, query, requestPageUrl(request));
      if (page.link) void reply.header('link', page.link);
      return { status: 200 as const, body: rawJson(page.json) };
    });
  }
}
