import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module';
import { MetafieldDefinitionsModule } from '../metafields/metafield-definitions.module';
import { MetafieldsModule } from '../metafields/metafields.module';
import { ProductsModule } from '../products/products.module';
import { ResourceFeedbackModule } from '../resource-feedback/resource-feedback.module';
import { StoresModule } from '../stores/stores.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { MerchantAppsController } from './merchant-apps.controller';
import { MerchantAppsService } from './merchant-apps.service';
import { MerchantCatalogService } from './merchant-catalog.service';
import { MerchantController } from './merchant.controller';
import { MerchantDefinitionsController } from './merchant-definitions.controller';
import { MerchantDefinitionsService } from './merchant-definitions.service';
import { MerchantNotFoundPages } from './merchant-not-found';
import { MerchantProductsController } from './merchant-products.controller';
import { MerchantReadModel } from './merchant.read-model';
import { MerchantSessionGuard } from './merchant-session.guard';
import { MerchantSessionsRepository } from './merchant-sessions.repository';
import { MerchantSessionsService } from './merchant-sessions.service';

/**
 * The merchant admin (issues 9, 10, 16, 18): its pages' controllers, the session guard every page
 * uses, its services and its read repository. It uses the other features' services (stores, apps,
 * definitions, values, feedback, webhooks) through their modules, and exports only its sessions
 * service (the consent page and the operator's sign-in links use it).
 */
@Module({
  imports: [StoresModule, AppsModule, ProductsModule, MetafieldDefinitionsModule, MetafieldsModule, ResourceFeedbackModule, WebhooksModule],
  controllers: [MerchantController, MerchantProductsController, MerchantDefinitionsController, MerchantAppsController],
  providers: [
    MerchantSessionsRepository,
    MerchantSessionsService,
    MerchantSessionGuard,
    MerchantReadModel,
    MerchantAppsService,
    MerchantCatalogService,
    MerchantDefinitionsService,
    MerchantNotFoundPages,
  ],
  exports: [MerchantSessionsService],
})
export class MerchantModule {}
