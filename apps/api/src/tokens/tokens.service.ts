import { Injectable } from '@nestjs/common';
import type { TransactionClient } from '@platform/db';
import { hashToken, tokenExpiresAt, type AppKind } from '@platform/domain';
import { ClockService } from '../core/clock.service';
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
 * refresh, an OAuth refresh) and revoking (uninstall, cancel, delete); the lookup of every Admin API request is
 * the access room's read model (access/caller.read-model.ts). Writes take the caller's transaction: a token is stored with what it belongs to.
 */
@Injectable()
export class TokensService {
  constructor(
    private readonly repository: TokensRepository,
    private readonly clock: ClockService,
  ) {}

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

  /** decisions §5.4: marks the token's expiry reminder as sent; false when another process did first. */
  claimReminder(tokenId: bigint, at: Date): Promise<boolean> {
    return this.repository.claimReminder(tokenId, at);
  }

  /** decisions §5.4: the reminder's sending failed; it is due again from `retryAt`. */
  unclaimReminder(tokenId: bigint, retryAt: Date): Promise<void> {
    return this.repository.unclaimReminder(tokenId, retryAt);
  }

  /** Whether `token` is a stored token that has not expired (the demo seed checks the one it was given). */
  isLive(token: string): Promise<boolean> {
    return this.repository.isLive(hashToken(token), this.clock.now());
  }
}
