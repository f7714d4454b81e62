import { Controller, Req, UseFilters } from '@nestjs/common';
import { oauthContract } from '@platform/contract';
import { TsRestHandler, tsRestHandler } from '@ts-rest/nest';
import type { FastifyRequest } from 'fastify';
import { OAuthEnvelopeFilter } from './oauth-envelope.filter';
import { OAuthTokensService } from './oauth-tokens.service';

const ok = <T>(data: T) => ({ code: 200 as const, i18nCode: 'SUCCESS' as const, message: 'ok', data });

/** decisions §5.2: the signed token calls of custom and public apps. */
@Controller()
@UseFilters(OAuthEnvelopeFilter)
export class OAuthTokensController {
  constructor(private readonly tokens: OAuthTokensService) {}

  @TsRestHandler(oauthContract)
  handler(@Req() request: FastifyRequest) {
    return tsRestHandler(oauthContract, {
      createOAuthToken: async ({ body }) => {
        const app = await this.tokens.caller(request);
        return { status: 200 as const, body: ok(await this.tokens.create(request, app, body.code)) };
      },
      refreshOAuthToken: async () => {
        const app = await this.tokens.caller(request);
        return { status: 200 as const, body: ok(await this.tokens.refresh(request, app)) };
      },
      cancelOAuthToken: async () => {
        const app = await this.tokens.caller(request);
        await this.tokens.cancel(request, app);
        return { status: 200 as const, body: ok(null) };
      },
    });
  }
}
