import type { Provider, Type } from '@nestjs/common';
import { MerchantMetafieldsService } from './merchant-metafields.service';
import { MetafieldListingService } from './metafield-listing.service';
import { MetafieldValidators } from './metafield-rules';
import { MetafieldWritesService } from './metafield-writes.service';
import { MetafieldsOperatorController } from './metafields-operator.controller';
import { MetafieldsController } from './metafields.controller';
import { MetafieldsRepository } from './metafields.repository';
import { MetafieldsService } from './metafields.service';
import { RecheckRepository } from './recheck.repository';
import { MetafieldRecheckWorker } from './recheck.worker';

/** Metafield values, the bulk set and the background re-check (decisions §8.9, §8.12): registered by AppModule. */
export const metafieldsFeature: { controllers: Type[]; providers: Provider[] } = {
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
};
