import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { adminContract } from '@platform/contract';
import { DomainError, hasScope, safeEqual, type Scope } from '@platform/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthService } from '../auth/auth.service';
import { ClockService } from '../clock/clock.service';
import type { Config } from '../config';
import { InjectConfig } from '../db/db.module';
import { ADMIN_PREFIX } from './conventions';
import { LeakyBucketLimiter } from './rate-limiter';

const OPERATOR_PREFIX = '/platform/v1/';

/** Required scopes of each Admin route, read from the contract's metadata (decisions §5.5). */
function scopesByRoute(): Map<string, readonly Scope[]> {
  const map = new Map<string, readonly Scope[]>();
  for (const route of Object.values(adminContract) as { method: string; path: string; metadata?: unknown }[]) {
    const metadata = route.metadata as { scope?: Scope; alsoScopes?: readonly Scope[] } | undefined;
    if (metadata?.scope) map.set(`${route.method} ${route.path}`, [metadata.scope, ...(metadata.alsoScopes ?? [])]);
  }
  return map;
}

/**
 * Admin API: token, store, scope and rate limit. Operator API: the operator token.
 * Everything else (health, docs) is open.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly scopes = scopesByRoute();
  private readonly limiter: LeakyBucketLimiter;

  constructor(
    private readonly auth: AuthService,
    private readonly clock: ClockService,
    @InjectConfig() private readonly config: Config,
  ) {
    this.limiter = new LeakyBucketLimiter(config.rateLimit.capacity, config.rateLimit.leakPerSecond);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    if (request.url.startsWith(ADMIN_PREFIX)) {
      await this.clock.sync();
      const auth = await this.auth.authenticate(request);
      request.auth = auth;
      const decision = this.limiter.take(`${auth.appId}:${auth.store.id}`, Date.now());
      void reply.header('X-Platform-Api-Call-Limit', `${decision.used}/${decision.capacity}`);
      if (!decision.allowed) {
        void reply.header('Retry-After', String(decision.retryAfterSeconds));
        throw new DomainError('RATE_LIMITED', 'Too many requests');
      }
      const missing = (this.scopes.get(`${request.method} ${request.routeOptions.url}`) ?? []).filter(
        (scope) => !hasScope(auth.scopes, scope),
      );
      if (missing.length > 0) {
        throw new DomainError('MISSING_SCOPE', `This action requires the access scope ${missing.join(' and ')}`);
      }
      return true;
    }
    if (request.url.startsWith(OPERATOR_PREFIX) || request.url === '/platform/v1') {
      await this.clock.sync();
      const header = request.headers.authorization ?? '';
      const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? '';
      if (!safeEqual(token, this.config.operatorToken)) {
        throw new DomainError('UNAUTHENTICATED', 'Invalid or missing operator token');
      }
      return true;
    }
    return true;
  }
}
