import { Injectable } from '@nestjs/common';
import type { TransactionClient } from '@platform/db';
import { DomainError, hashToken, isScope, resolveHost, tokenExpiresAt, type AppKind, type Scope } from '@platform/domain';
import type { FastifyRequest } from 'fastify';
import { ClockService } from '../core/clock.service';
import { InjectConfig } from '../core/injection';
import type { Config } from '../config';
import { bearerToken } from '../http/bearer';
import type { AuthContext } from '../http/request-context';
import { newSecret } from './new-secret';
import { TokensRepository } from './tokens.repository';

/** A token just made: the secret the caller is shown once, and when it expires. */
export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

/**
 * The access tokens of every app kind (decisions §5): issuing (private apps at creation, OAuth
 * apps at the code exchange), replacing with the 5 minutes of grace (a private app's merchant
 * refresh, an OAuth refresh), revoking (uninstall, cancel, delete) and the lookup of every Admin
 * API request. Writes take the caller's transaction: a token is stored with what it belongs to.
 */
@Injectable()
export class TokensService {
  constructor(
    private readonly repository: TokensRepository,
    private readonly clock: ClockService,
    @InjectConfig() private readonly config: Config,
  ) {}

  /** decisions §1.3, §5: who is calling, for which store (the store's standing is checked by the caller). */
  async authenticate(request: FastifyRequest): Promise<AuthContext> {
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) {
      throw new DomainError('UNAUTHENTICATED', 'Missing access token: send the header Authorization: Bearer <ACCESS_TOKEN>');
    }
    if (!token) throw new DomainError('UNAUTHENTICATED', 'Malformed Authorization header: send Authorization: Bearer <ACCESS_TOKEN>');
    const row = await this.repository.findByTokenHash(hashToken(token));
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

  /** A new token for an installation made in `tx` (its first). `fixed` is a token given by the operator (the demo seed). */
  async issue(tx: TransactionClient, installationId: bigint, kind: AppKind, now: Date, fixed?: string): Promise<IssuedToken> {
    const issued = { token: fixed ?? newSecret(), expiresAt: tokenExpiresAt(kind, now) };
    await this.repository.create(tx, installationId, { tokenHash: hashToken(issued.token), expiresAt: issued.expiresAt }, now);
    return issued;
  }

  /** A new token; the installation's previous ones stay valid exactly 5 more minutes (decisions §5.3-§5.4). */
  async replace(tx: TransactionClient, installationId: bigint, kind: AppKind, now: Date): Promise<IssuedToken> {
    const issued = { token: newSecret(), expiresAt: tokenExpiresAt(kind, now) };
    await this.repository.replace(tx, installationId, { tokenHash: hashToken(issued.token), expiresAt: issued.expiresAt }, now);
    return issued;
  }

  /** Every token of the installation invalid at once (decisions §5.3-§5.4). */
  revokeAll(tx: TransactionClient, installationId: bigint): Promise<void> {
    return this.repository.revokeAll(tx, installationId);
  }

  /** Whether the installation holds a token that has not expired (a refresh needs one, decisions §5.3). */
  async hasLiveToken(installationId: bigint): Promise<boolean> {
    const now = this.clock.now().getTime();
    return (await this.repository.current(installationId)).some((t) => t.expiresAt.getTime() > now);
  }
}
