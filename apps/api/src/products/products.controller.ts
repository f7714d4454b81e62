import { Controller, Req, Res } from '@nestjs/common';
import { adminContract } from '@platform/contract';
import { TsRestHandler, tsRestHandler } from '@ts-rest/nest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { rawJson, requestPageUrl } from '../http/raw-json';
import { ProductsService } from './products.service';

@Controller()
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  @TsRestHandler(adminContract.listProducts)
  list(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return tsRestHandler(adminContract.listProducts, async ({ query }) => {
      const page = await this.products.list(request.auth!.store, query, requestPageUrl(request));
      if (page.link) void reply.header('link', page.link);
      return { status: 200 as const, body: rawJson(page.json) };
    });
  }
}
