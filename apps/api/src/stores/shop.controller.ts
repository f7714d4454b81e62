import { Controller, Req } from '@nestjs/common';
import { adminContract } from '@platform/contract';
import { TsRestHandler, tsRestHandler } from '@ts-rest/nest';
import type { FastifyRequest } from 'fastify';
import { StoresService } from './stores.service';

@Controller()
export class ShopController {
  constructor(private readonly stores: StoresService) {}

  @TsRestHandler(adminContract.getShop)
  get(@Req() request: FastifyRequest) {
    return tsRestHandler(adminContract.getShop, async () => {
      const store = await this.stores.getById(request.auth!.store.id);
      return { status: 200 as const, body: { data: this.stores.toShop(store) } };
    });
  }
}
