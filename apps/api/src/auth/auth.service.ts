import { Injectable } from '@nestjs/common';
import { DomainError, hashToken, isScope, resolveHost, type Scope } from '@platform/domain';
import type { FastifyRequest } from 'fastify';
import { ClockService } from '../clock/clock.service';
import { InjectConfig } from '../db/db.module';
import type { Config } from '../config';
import type { AuthContext } from '../http/request-context';
import { AuthRepository } from './auth.repository';

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

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
    if (!token) {
      throw new DomainError('UNAUTHENTICATED', 'Missing access token: send the header Authorization: Bearer <ACCESS_TOKEN>');
    }
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
    // decisions §5.6: checked after authentication.
    if (row.status === 'closed') throw new DomainError('STORE_CLOSED', 'This store is closed');
    if (row.status === 'frozen') throw new DomainError('PAYMENT_REQUIRED', 'This store is frozen; its requests are restricted');
    if (row.plan_expires_at && new Date(row.plan_expires_at).getTime() <= now.getTime()) {
      throw new DomainError('PAYMENT_REQUIRED', "This store's plan has expired; its requests are restricted");
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
      },
    };
  }

  private hostOf(request: FastifyRequest): string | undefined {
    if (this.config.trustProxy) {
      const forwarded = request.headers['x-forwarded-host'];
      if (typeof forwarded === 'string' && forwarded) return forwarded.split(',')[0]!.trim();
    }
    return request.headers.host;
  }
}
