import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccessGuard } from './access.guard';
import { AccessService } from './access.service';
import { CallerReadModel } from './caller.read-model';

/**
 * Who is calling the Admin API, with which scopes: the access check (token, rate limit, store
 * status, scope; run from the onRequest hook, http/conventions) and the guard that fails closed
 * without it.
 */
@Module({
  providers: [CallerReadModel, AccessService, { provide: APP_GUARD, useClass: AccessGuard }],
  exports: [AccessService],
})
export class AccessModule {}
