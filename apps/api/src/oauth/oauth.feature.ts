import type { Provider, Type } from '@nestjs/common';
import { MerchantController } from '../merchant/merchant.controller';
import { MerchantProductsController } from '../merchant/merchant-products.controller';
import { MerchantWebhooksController } from '../merchant/merchant-webhooks.controller';
import { MerchantSessionsRepository } from '../merchant/merchant-sessions.repository';
import { MerchantSessionsService } from '../merchant/merchant-sessions.service';
import { OAuthGrantsService } from './oauth-grants.service';
import { OAuthPagesController } from './oauth-pages.controller';
import { OAuthRepository } from './oauth.repository';
import { OAuthTokensController } from './oauth-tokens.controller';
import { OAuthTokensService } from './oauth-tokens.service';

/** Merchant sessions and pages (home, products and their feedback, apps and their deliveries), the consent page and the token calls (decisions §5.2, §10): registered by AppModule. */
export const oauthFeature: { controllers: Type[]; providers: Provider[] } = {
  controllers: [MerchantController, MerchantProductsController, MerchantWebhooksController, OAuthPagesController, OAuthTokensController],
  providers: [MerchantSessionsRepository, MerchantSessionsService, OAuthRepository, OAuthGrantsService, OAuthTokensService],
};
