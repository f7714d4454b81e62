import type { Provider, Type } from '@nestjs/common';
import { OAuthGrantsService } from './oauth-grants.service';
import { OAuthPagesController } from './oauth-pages.controller';
import { OAuthRepository } from './oauth.repository';
import { OAuthTokensController } from './oauth-tokens.controller';
import { OAuthTokensService } from './oauth-tokens.service';

/** The consent page and the token calls (decisions §5.2): registered by AppModule; merchant sessions come from MerchantModule. */
export const oauthFeature: { controllers: Type[]; providers: Provider[] } = {
  controllers: [OAuthPagesController, OAuthTokensController],
  providers: [OAuthRepository, OAuthGrantsService, OAuthTokensService],
};
