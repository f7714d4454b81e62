import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { adminContract } from '@platform/contract';
import { checkStoreStatus, DomainError, hashToken, hasScope, isScope, resolveHost, type Scope } from '@platform/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config';
import { ClockService } from '../core/clock.service';
import { InjectConfig } from '../core/injection';
import { AdminAccess } from '../http/admin-access';
import { bearerToken } from '../http/bearer';
import { RATE_LIMITER } from '../http/injection';
import type { RateLimiter } from '../http/rate-limiter';
import { CallerReadModel } from './caller.read-model';
import type { AuthContext } from './request-context';

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
 * Admin API: token, rate limit, store status, scope (decisions §5, §7), decided on the route the
 * router matched. It runs in the `onRequest` hook (http/conventions), before a byte of the body is
 * read: an anonymous or unauthorised caller never makes the server parse a body (issue 8, finding 4).
 */
@Injectable()
export class AccessService implements OnModuleInit {
  private readonly scopes = scopesByRoute();

  constructor(
    private readonly callers: CallerReadModel,
    private readonly clock: ClockService,
    @InjectConfig() private readonly config: Config,
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
    const auth = await this.authenticate(request);
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

  /** decisions §1.3, §5: who is calling, for which store (the store's standing is checked by the caller). */
  private async authenticate(request: FastifyRequest): Promise<AuthContext> {
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) {
      throw new DomainError('UNAUTHENTICATED', 'Missing access token: send the header Authorization: Bearer <ACCESS_TOKEN>');
    }
    if (!token) throw new DomainError('UNAUTHENTICATED', 'Malformed Authorization header: send Authorization: Bearer <ACCESS_TOKEN>');
    const row = await this.callers.findByTokenHash(hashToken(token));
    if (!row) throw new DomainError('UNAUTHENTICATED', 'Invalid access token (unknown or revoked)');
    if (new Date(row.expires_at).getTime() <= this.clock.now().getTime()) {
      throw new DomainError('TOKEN_EXPIRED', 'The access token has expired; refresh it to get a new one');
    }
    // The host the request names: Fastify's reading (X-Forwarded-Host only from an address of PLATFORM_TRUST_PROXY),
    // the same one the links the service builds use (decisions §1.3, §1.4).
    const host = resolveHost(request.host, this.config.baseDomain);
    if (host.kind === 'store' && host.handle !== row.handle) {
      throw new DomainError('UNAUTHENTICATED', `Invalid access token for store '${host.handle}'`);
    }
    return {
      tokenId: BigInt(row.token_id),
      appId: BigInt(row.app_id),
      appKind: row.kind,
      installationId: BigInt(row.installation_id),
      scopes: row.scopes.split(',').filter((s): s is Scope => isScope(s)),
      store: {
        id: BigInt(row.store_id),
        handle: row.handle,
        name: row.name,
        ianaTimezone: row.iana_timezone,
        status: row.status,
        planExpiresAt: row.plan_expires_at ? new Date(row.plan_expires_at) : null,
        catalogRevision: BigInt(row.catalog_revision),
      },
    };
  }
}
