import { Module } from '@nestjs/common';
import { MerchantMetafieldsService } from './merchant-metafields.service';
import { MetafieldListingService } from './metafield-listing.service';
import { MetafieldRecheckWorker } from './recheck.worker';
import { MetafieldValidators } from './metafield-rules';
import { MetafieldWritesService } from './metafield-writes.service';
import { MetafieldsController } from './metafields.controller';
import { MetafieldsOperatorController } from './metafields-operator.controller';
import { MetafieldsRepository } from './metafields.repository';
import { MetafieldsService } from './metafields.service';
import { RecheckRepository } from './recheck.repository';
import { ProductsModule } from '../products/products.module';
import { StoresModule } from '../stores/stores.module';

/** Metafield values, the bulk set and the background re-check (decisions §8.8-§8.13). */
@Module({
  imports: [StoresModule, ProductsModule],
  controllers: [MetafieldsController, MetafieldsOperatorController],
  providers: [
    MetafieldsRepository,
    MetafieldValidators,
    MetafieldWritesService,
    MetafieldsService,
    MetafieldListingService,
    MerchantMetafieldsService,
    RecheckRepository,
    MetafieldRecheckWorker,
  ],
  exports: [MetafieldsService, MetafieldWritesService, MerchantMetafieldsService],
})
export class MetafieldsModule {}
