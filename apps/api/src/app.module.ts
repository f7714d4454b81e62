import { DynamicModule, Module } from '@nestjs/common';
import { AccessModule } from './access/access.module';
import { AppsModule } from './apps/apps.module';
import { CoreModule, type CoreParts } from './core/core.module';
import { HealthModule } from './health/health.module';
import { HttpModule, type EdgeParts } from './http/http.module';
import { InventoryModule } from './inventory/inventory.module';
import { MerchantModule } from './merchant/merchant.module';
import { MetafieldDefinitionsModule } from './metafields/metafield-definitions.module';
import { MetafieldsModule } from './metafields/metafields.module';
import { OAuthModule } from './oauth/oauth.module';
import { OperatorModule } from './operator/operator.module';
import { ProductsModule } from './products/products.module';
import { RemindersModule } from './reminders/reminders.module';
import { ResourceFeedbackModule } from './resource-feedback/resource-feedback.module';
import { StoresModule } from './stores/stores.module';
import { TokensModule } from './tokens/tokens.module';
import { WebhooksModule } from './webhooks/webhooks.module';

/** The API: the core and edge parts the bootstrap made, the access check, and one module per feature. */
@Module({})
export class AppModule {
  static register(parts: CoreParts & EdgeParts): DynamicModule {
    const { db, config, clock, ...edge } = parts;
    return {
      module: AppModule,
      imports: [
        CoreModule.register({ db, config, clock }),
        HttpModule.register(edge),
        AccessModule,
        HealthModule,
        TokensModule,
        StoresModule,
        AppsModule,
        OAuthModule,
        MerchantModule,
        ProductsModule,
        MetafieldDefinitionsModule,
        MetafieldsModule,
        ResourceFeedbackModule,
        WebhooksModule,
        InventoryModule,
        RemindersModule,
        OperatorModule,
      ],
    };
  }
}
