import { Controller } from '@nestjs/common';
import { operatorWebhooksContract as routes } from '@platform/contract';
import { TsRestHandler, tsRestHandler } from '@ts-rest/nest';
import { InventoryService } from './inventory.service';

/** Operator API (decisions §10): the inventory and fulfillment changes that emit webhook events. */
@Controller()
export class InventoryController {
  constructor(private readonly inventory: InventoryService) {}

  @TsRestHandler(routes.updateInventoryItem)
  updateInventoryItem() {
    return tsRestHandler(routes.updateInventoryItem, async ({ params, body }) => ({
      status: 200 as const,
      body: { inventory_item: await this.inventory.updateInventoryItem(params.handle, params.id, body.inventory_item) },
    }));
  }

  @TsRestHandler(routes.createFulfillmentOrder)
  createFulfillmentOrder() {
    return tsRestHandler(routes.createFulfillmentOrder, async ({ params }) => ({
      status: 201 as const,
      body: { fulfillment_order: await this.inventory.createFulfillmentOrder(params.handle) },
    }));
  }

  @TsRestHandler(routes.releaseFulfillmentOrder)
  releaseFulfillmentOrder() {
    return tsRestHandler(routes.releaseFulfillmentOrder, async ({ params }) => ({
      status: 200 as const,
      body: { fulfillment_order: await this.inventory.releaseFulfillmentOrder(params.handle, params.id) },
    }));
  }
}
