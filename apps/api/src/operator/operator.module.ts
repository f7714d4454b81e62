import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module';
import { MerchantModule } from '../merchant/merchant.module';
import { OAuthModule } from '../oauth/oauth.module';
import { ProductsModule } from '../products/products.module';
import { StoresModule } from '../stores/stores.module';
import { OperatorController } from './operator.controller';

/** The operator API's own routes (decisions §10); the features' operator routes live with their features. */
@Module({
  imports: [StoresModule, AppsModule, ProductsModule, MerchantModule, OAuthModule],
  controllers: [OperatorController],
})
export class OperatorModule {}
