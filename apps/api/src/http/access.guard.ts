import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { adminContract } from '@platform/contract';
import { DomainError, hasScope, type Scope } from '@platform/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthService } from '../auth/auth.service';
import { ADMIN_PREFIX } from './conventions';
import { RATE_LIMITER } from '../db/db.module';
import type { RateLimiter } from './rate-limiter';

/** Required scopes of each Admin route, read from the contract's metadata (decisions §5.5). */
function scopesByRoute(): Map<string, RouteScopes> {
  const map = new Map<string, RouteScopes>();
  for (const route of Object.values(adminContract) as { method: string; path: string; metadata?: unknown }[]) {
    const metadata = route.metadata as { scope?: Scope; alsoScopes?: readonly Scope[]; orScopes?: readonly Scope[] } | undefined;
    if (metadata?.scope) {
      map.set(`${route.method} ${route.path}`, {
        all: [metadata.scope, ...(metadata.alsoScopes ?? [])],
        anyOf: metadata.orScopes?.length ? [metadata.scope, ...metadata.orScopes] : undefined,
      });
    }
  }
  return map;
}

/** Every scope of `all`; or, when `anyOf` is set (webhook routes, whose topic decides), any one of `anyOf`. */
interface RouteScopes {
  all: readonly Scope[];
  anyOf: readonly Scope[] | undefined;
}

/**
 * Admin API: token, rate limit, store status, scope (decisions §5, §7). The operator API's token is
 * checked for every /platform/ URL in http/conventions; everything else (health, docs) is open.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly scopes = scopesByRoute();

  constructor(
    private readonly auth: AuthService,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    // The route the router matched, not the raw URL: a check must see what is routed (the operator
    // token and the clock are settled for every /platform/ URL in http/conventions).
    const route = request.routeOptions.url ?? '';
    if (!route.startsWith(ADMIN_PREFIX)) return true;
    const auth = await this.auth.authenticate(request);
    request.auth = auth;
    // decisions §7.3: every answer to a known caller carries the bucket, restricted stores' too.
    const decision = await this.limiter.take(`${auth.appId}:${auth.store.id}`);
    void reply.header('X-Platform-Api-Call-Limit', `${decision.used}/${decision.capacity}`);
    if (!decision.allowed) {
      void reply.header('Retry-After', String(decision.retryAfterSeconds));
      throw new DomainError('RATE_LIMITED', 'Too many requests');
    }
    this.auth.checkStoreStatus(auth.store);
    // HEAD is Fastify's automatic twin of a GET route: it answers what GET would (status, headers),
    // so it needs what GET needs. A route without scopes in the contract is a bug, never open.
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const required = this.scopes.get(`${method} ${route}`);
    if (required === undefined) throw new Error(`no access scope declared for ${method} ${route}`);
    if (required.anyOf !== undefined) {
      if (!required.anyOf.some((scope) => hasScope(auth.scopes, scope))) {
        throw new DomainError('MISSING_SCOPE', `This action requires the access scope ${required.anyOf.join(' or ')}`);
      }
      return true;
    }
    const missing = required.all.filter((scope) => !hasScope(auth.scopes, scope));
    if (missing.length > 0) {
      throw new DomainError('MISSING_SCOPE', `This action requires the access scope ${missing.join(' and ')}`);
    }
    return true;
  }
}
