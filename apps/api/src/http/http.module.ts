import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { TokensModule } from '../tokens/tokens.module';
import { AccessGuard, AccessService } from './access.guard';
import { ErrorsFilter } from './errors.filter';

/**
 * The cross-cutting rules of every route that Nest serves: the access check of the Admin API (token,
 * rate limit, store status, scope; run from the onRequest hook, http/conventions), the guard that
 * fails closed without it, and the one filter that writes errors.
 */
@Module({
  imports: [TokensModule],
  providers: [AccessService, { provide: APP_GUARD, useClass: AccessGuard }, { provide: APP_FILTER, useClass: ErrorsFilter }],
  exports: [AccessService],
})
export class HttpModule {}
