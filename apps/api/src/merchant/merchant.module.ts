import { Module } from '@nestjs/common';
import { MerchantAppsController } from './merchant-apps.controller';
import { MerchantAppsService } from './merchant-apps.service';
import { MerchantCatalogService } from './merchant-catalog.service';
import { MerchantController } from './merchant.controller';
import { MerchantDefinitionsController } from './merchant-definitions.controller';
import { MerchantDefinitionsService } from './merchant-definitions.service';
import { MerchantProductsController } from './merchant-products.controller';
import { MerchantReadRepository } from './merchant-read.repository';
import { MerchantSessionGuard } from './merchant-session.guard';
import { MerchantSessionsRepository } from './merchant-sessions.repository';
import { MerchantSessionsService } from './merchant-sessions.service';

/**
 * The merchant admin (issues 9, 10, 16, 18): its pages' controllers, the session guard every page
 * uses, its services and its read repository. It uses the other features' services (stores, apps,
 * definitions, values, feedback, webhooks) from the shared module, and exports only its sessions
 * service (the consent page and the operator's sign-in links use it).
 */
@Module({
  controllers: [MerchantController, MerchantProductsController, MerchantDefinitionsController, MerchantAppsController],
  providers: [
    MerchantSessionsRepository,
    MerchantSessionsService,
    MerchantSessionGuard,
    MerchantReadRepository,
    MerchantAppsService,
    MerchantCatalogService,
    MerchantDefinitionsService,
  ],
  exports: [MerchantSessionsService],
})
export class MerchantModule {}
