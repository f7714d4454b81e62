import { Controller, Req, Res } from '@nestjs/common';
import { metafieldsContract as routes } from '@platform/contract';
import { TsRestHandler, tsRestHandler } from '@ts-rest/nest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { rawJson, requestPageUrl } from '../http/raw-json';
import { MetafieldListingService } from './metafield-listing.service';
import { pathId } from '../http/ids';
import { MetafieldsService } from './metafields.service';

/**
 * Admin API: metafield values on products and the bulk set (decisions §8.9). One method per route:
 * ts-rest's multi-route handler does not carry Nest's `@Res({ passthrough })` flag over.
 */
@Controller()
export class MetafieldsController {
  constructor(
    private readonly metafields: MetafieldsService,
    private readonly listing: MetafieldListingService,
  ) {}

  @TsRestHandler(routes.createProductMetafield)
  create(@Req() request: FastifyRequest) {
    return tsRestHandler(routes.createProductMetafield, async ({ params, body }) => {
      const { created, metafield } = await this.metafields.create(request.auth!, request.apiVersion, pathId(params.id), body.metafield);
      return created ? { status: 201 as const, body: { metafield } } : { status: 200 as const, body: { metafield } };
    });
  }

  @TsRestHandler(routes.listProductMetafields)
  list(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return tsRestHandler(routes.listProductMetafields, async ({ params, query }) => {
      const productId = pathId(params.id);
      await this.metafields.requireProduct(request.auth!, productId);
      const page = await this.listing.listForProduct(request.auth!, productId, query, requestPageUrl(request));
      if (page.link) void reply.header('link', page.link);
      return { status: 200 as const, body: rawJson(page.json) };
    });
  }

  @TsRestHandler(routes.getProductMetafield)
  get(@Req() request: FastifyRequest) {
    return tsRestHandler(routes.getProductMetafield, async ({ params }) => ({
      status: 200 as const,
      body: { metafield: await this.metafields.get(request.auth!, pathId(params.id), pathId(params.metafieldId)) },
    }));
  }

  @TsRestHandler(routes.updateProductMetafield)
  update(@Req() request: FastifyRequest) {
    return tsRestHandler(routes.updateProductMetafield, async ({ params, body }) => {
      const ids = [pathId(params.id), pathId(params.metafieldId)] as const;
      const metafield = await this.metafields.update(request.auth!, request.apiVersion, ...ids, body.metafield);
      return { status: 200 as const, body: { metafield } };
    });
  }

  @TsRestHandler(routes.deleteProductMetafield)
  remove(@Req() request: FastifyRequest) {
    return tsRestHandler(routes.deleteProductMetafield, async ({ params }) => {
      await this.metafields.remove(request.auth!, pathId(params.id), pathId(params.metafieldId));
      return { status: 200 as const, body: {} };
    });
  }

  @TsRestHandler(routes.setMetafields)
  set(@Req() request: FastifyRequest) {
    return tsRestHandler(routes.setMetafields, async ({ body }) => ({
      status: 200 as const,
      body: { metafields: await this.metafields.set(request.auth!, request.apiVersion, body) },
    }));
  }
}
