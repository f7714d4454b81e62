import { Module } from '@nestjs/common';
import { StoresModule } from '../stores/stores.module';
import { ListingDocumentsWorker } from './listing-documents.worker';
import { ProductsListingRoute } from './products-listing.route';
import { ProductsWriteService } from './products-write.service';
import { ProductsRepository } from './products.repository';
import { ProductsService } from './products.service';

/** Products: the listing (served outside Nest's router, docs/performance.md) and the operator's writes. */
@Module({
  imports: [StoresModule],
  providers: [ProductsRepository, ProductsService, ProductsWriteService, ListingDocumentsWorker, ProductsListingRoute],
  exports: [ProductsService, ProductsWriteService, ListingDocumentsWorker],
})
export class ProductsModule {}
