import { Module } from '@nestjs/common';
import { StoresModule } from '../stores/stores.module';
import { InventoryItemsRepository } from './inventory-items.repository';
import { InventoryItemsService } from './inventory-items.service';
import { ListingDocumentsReadModel } from './listing-documents.read-model';
import { ListingDocumentsWorker } from './listing-documents.worker';
import { ProductsListingRoute } from './products-listing.route';
import { ProductsWriteService } from './products-write.service';
import { ProductsRepository } from './products.repository';
import { ProductsService } from './products.service';

/**
 * Products with their parts and inventory items: the listing (served outside Nest's router,
 * docs/performance.md), the operator's writes, and the changes of items the inventory room makes.
 */
@Module({
  imports: [StoresModule],
  providers: [
    ProductsRepository,
    ProductsService,
    ProductsWriteService,
    ListingDocumentsReadModel,
    ListingDocumentsWorker,
    ProductsListingRoute,
    InventoryItemsRepository,
    InventoryItemsService,
  ],
  exports: [ProductsService, ProductsWriteService, ListingDocumentsWorker, InventoryItemsService],
})
export class ProductsModule {}
