import { DynamicModule, Global, Module, type Provider } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AppsService } from './apps/apps.service';
import { AuthRepository } from './auth/auth.repository';
import { AuthService } from './auth/auth.service';
import { CoreModule, type CoreParts } from './db/db.module';
import { metafieldDefinitionsFeature } from './metafield-definitions/metafield-definitions.feature';
import { metafieldsFeature } from './metafields/metafields.feature';
import { webhooksFeature } from './webhooks/webhooks.feature';
import { resourceFeedbackFeature } from './resource-feedback/resource-feedback.feature';
import { oauthFeature } from './oauth/oauth.feature';
import { MerchantModule } from './merchant/merchant.module';
import { HealthController } from './health/health.controller';
import { AccessGuard, AccessService } from './http/access.guard';
import { ErrorsFilter } from './http/errors.filter';
import { OperatorController } from './operator/operator.controller';
import { ProductsListingRoute } from './products/products-listing.route';
import { ProductsRepository } from './products/products.repository';
import { ProductsService } from './products/products.service';
import { ProductsWriteService } from './products/products-write.service';
import { ListingDocumentsWorker } from './products/listing-documents.worker';
import { ShopController } from './shop/shop.controller';
import { StoresService } from './stores/stores.service';
import { TokenRemindersRepository } from './reminders/token-reminders.repository';
import { TokenReminderWorker } from './reminders/token-reminders.worker';

/**
 * The services of the features that are not modules of their own yet, shared with every module
 * (the merchant module uses them). Global until each feature becomes its module (issue 16).
 */
const FEATURE_PROVIDERS: Provider[] = [
  AuthRepository,
  AuthService,
  AccessService,
  StoresService,
  AppsService,
  ProductsRepository,
  ProductsService,
  ProductsWriteService,
  ListingDocumentsWorker,
  ProductsListingRoute,
  TokenRemindersRepository,
  TokenReminderWorker,
  ...metafieldDefinitionsFeature.providers,
  ...metafieldsFeature.providers,
  ...webhooksFeature.providers,
  ...resourceFeedbackFeature.providers,
  ...oauthFeature.providers,
];

@Global()
@Module({ providers: FEATURE_PROVIDERS, exports: FEATURE_PROVIDERS })
export class FeatureServicesModule {}

@Module({})
export class AppModule {
  static register(core: CoreParts): DynamicModule {
    return {
      module: AppModule,
      imports: [CoreModule.register(core), FeatureServicesModule, MerchantModule],
      controllers: [
        HealthController,
        ShopController,
        OperatorController,
        ...metafieldDefinitionsFeature.controllers,
        ...metafieldsFeature.controllers,
        ...webhooksFeature.controllers,
        ...resourceFeedbackFeature.controllers,
        ...oauthFeature.controllers,
      ],
      providers: [
        { provide: APP_GUARD, useClass: AccessGuard },
        { provide: APP_FILTER, useClass: ErrorsFilter },
      ],
    };
  }
}
