import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module';
import { MerchantModule } from '../merchant/merchant.module';
import { StoresModule } from '../stores/stores.module';
import { TokensModule } from '../tokens/tokens.module';
import { OAuthGrantsService } from './oauth-grants.service';
import { OAuthPagesController } from './oauth-pages.controller';
import { OAuthTokensController } from './oauth-tokens.controller';
import { OAuthTokensService } from './oauth-tokens.service';
import { OAuthRepository } from './oauth.repository';

/** The consent page and the token calls of custom and public apps (decisions §5.2-§5.3). */
@Module({
  imports: [AppsModule, StoresModule, TokensModule, MerchantModule],
  controllers: [OAuthPagesController, OAuthTokensController],
  providers: [OAuthRepository, OAuthGrantsService, OAuthTokensService],
  exports: [OAuthGrantsService],
})
export class OAuthModule {}
