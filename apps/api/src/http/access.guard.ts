import { CanActivate, ExecutionContext, Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { adminContract } from '@platform/contract';
import { checkStoreStatus, DomainError, hasScope, type Scope } from '@platform/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClockService } from '../core/clock.service';
import { AdminAccess } from './admin-access';
import { TokensService } from '../tokens/tokens.service';
import { ADMIN_PREFIX } from './wire';
import { RATE_LIMITER } from '../core/injection';
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

/** The route pattern the router matched, when it is an Admin API route (decisions §1.1). */
export function matchedAdminRoute(request: FastifyRequest): string | undefined {
  const route = request.is404 ? undefined : request.routeOptions.url;
  return route?.startsWith(ADMIN_PREFIX) ? route : undefined;
}

/**
 * Admin API: token, rate limit, store status, scope (decisions §5, §7), decided on the route the
 * router matched. It runs in the `onRequest` hook (http/conventions), before a byte of the body is
 * read: an anonymous or unauthorised caller never makes the server parse a body (issue 8, finding 4).
 */
@Injectable()
export class AccessService implements OnModuleInit {
  private readonly scopes = scopesByRoute();

  constructor(
    private readonly tokens: TokensService,
    private readonly clock: ClockService,
    @Inject(AdminAccess) private readonly access: AdminAccess,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
  ) {}

  /** The onRequest hook runs this check from now on (http/admin-access). */
  onModuleInit(): void {
    this.access.provide((request, reply, route) => this.check(request, reply, route));
  }

  async check(request: FastifyRequest, reply: FastifyReply, route: string): Promise<void> {
    // HEAD is Fastify's automatic twin of a GET route: it answers what GET would (status, headers),
    // so it needs what GET needs. A route without scopes in the contract is a bug, never open.
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const required = this.scopes.get(`${method} ${route}`);
    if (required === undefined) throw new Error(`no access scope declared for ${method} ${route}`);
    const auth = await this.tokens.authenticate(request);
    request.auth = auth;
    // decisions §7.3: every answer to a known caller carries the bucket, restricted stores' too.
    const decision = await this.limiter.take(`${auth.appId}:${auth.store.id}`);
    void reply.header('X-Platform-Api-Call-Limit', `${decision.used}/${decision.capacity}`);
    if (!decision.allowed) {
      void reply.header('Retry-After', String(decision.retryAfterSeconds));
      throw new DomainError('RATE_LIMITED', 'Too many requests');
    }
    checkStoreStatus(auth.store, this.clock.now());
    if (required.anyOf !== undefined) {
      if (!required.anyOf.some((scope) => hasScope(auth.scopes, scope))) {
        throw new DomainError('MISSING_SCOPE', `This action requires the access scope ${required.anyOf.join(' or ')}`);
      }
      return;
    }
    const missing = required.all.filter((scope) => !hasScope(auth.scopes, scope));
    if (missing.length > 0) {
      throw new DomainError('MISSING_SCOPE', `This action requires the access scope ${missing.join(' and ')}`);
    }
  }
}

/**
 * Fails closed: an Admin route reached without the `onRequest` access check having run (a hook
 * order changed, a route registered another way) is refused rather than served unauthenticated.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (matchedAdminRoute(request) !== undefined && request.auth === undefined) {
      throw new Error(`Admin route ${request.method} ${request.routeOptions.url} reached without its access check`);
    }
    return true;
  }
}
