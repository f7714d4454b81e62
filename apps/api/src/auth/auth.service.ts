import { Injectable } from '@nestjs/common';
import { DomainError, hashToken, isScope, resolveHost, type Scope } from '@platform/domain';
import type { FastifyRequest } from 'fastify';
import { ClockService } from '../clock/clock.service';
import { InjectConfig } from '../db/db.module';
import type { Config } from '../config';
import { bearerToken } from '../http/bearer';
import type { AuthContext } from '../http/request-context';
import { AuthRepository } from './auth.repository';

/** decisions §1.3, §5: who is calling, for which store, and may the store be used at all. */
@Injectable()
export class AuthService {
  constructor(
    private readonly repository: AuthRepository,
    private readonly clock: ClockService,
    @InjectConfig() private readonly config: Config,
  ) {}

  async authenticate(request: FastifyRequest): Promise<AuthContext> {
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) {
      throw new DomainError('UNAUTHENTICATED', 'Missing access token: send the header Authorization: Bearer <ACCESS_TOKEN>');
    }
    if (!token) throw new DomainError('UNAUTHENTICATED', 'Malformed Authorization header: send Authorization: Bearer <ACCESS_TOKEN>');
    const row = await this.repository.findByTokenHash(hashToken(token));
    if (!row) throw new DomainError('UNAUTHENTICATED', 'Invalid access token (unknown or revoked)');
    const now = this.clock.now();
    if (new Date(row.expires_at).getTime() <= now.getTime()) {
      throw new DomainError('TOKEN_EXPIRED', 'The access token has expired; refresh it to get a new one');
    }
    const host = resolveHost(this.hostOf(request), this.config.baseDomain);
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

  /** decisions §5.6: a restricted store answers 402 or 423, checked after authentication. */
  checkStoreStatus(store: AuthContext['store']): void {
    if (store.status === 'closed') throw new DomainError('STORE_CLOSED', 'This store is closed');
    if (store.status === 'frozen') throw new DomainError('PAYMENT_REQUIRED', 'This store is frozen; its requests are restricted');
    if (store.planExpiresAt && store.planExpiresAt.getTime() <= this.clock.now().getTime()) {
      throw new DomainError('PAYMENT_REQUIRED', "This store's plan has expired; its requests are restricted");
    }
  }

  /**
   * The host the request names: Fastify's reading (X-Forwarded-Host only with PLATFORM_TRUST_PROXY),
   * the same one the links the service builds use (decisions §1.3, §1.4).
   */
  private hostOf(request: FastifyRequest): string | undefined {
    return request.host;
  }
}
