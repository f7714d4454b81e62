import { Module } from '@nestjs/common';
import { ProductsModule } from '../products/products.module';
import { StoresModule } from '../stores/stores.module';
import { InventoryController } from './inventory.controller';
import { InventoryRepository } from './inventory.repository';
import { InventoryService } from './inventory.service';

/** Inventory items and fulfillment orders: the operator's changes and the webhook events they emit (decisions §10, §11.6). */
@Module({
  imports: [StoresModule, ProductsModule],
  controllers: [InventoryController],
  providers: [InventoryRepository, InventoryService],
  exports: [InventoryService],
})
export class InventoryModule {}
