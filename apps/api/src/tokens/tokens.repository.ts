import { Injectable } from '@nestjs/common';
import type { Db, TransactionClient } from '@platform/db';
import { graceExpiry } from '@platform/domain';
import { InjectDb } from '../core/injection';

/** A token's row joined with what every Admin API request needs to know about its caller. */
export interface TokenRow {
  token_id: bigint | number;
  expires_at: Date;
  installation_id: bigint | number;
  scopes: string;
  app_id: bigint | number;
  kind: 'private' | 'custom' | 'public';
  store_id: bigint | number;
  handle: string;
  name: string;
  iana_timezone: string;
  status: string;
  plan_expires_at: Date | null;
  catalog_revision: bigint | number;
}

/** Access tokens of every app kind (decisions §5): only their SHA-256 is stored. */
@Injectable()
export class TokensRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  /** The lookup every Admin API request makes: one indexed query, straight to the driver. */
  async findByTokenHash(tokenHash: string): Promise<TokenRow | undefined> {
    const rows = await this.db.query<TokenRow>(
      `SELECT t.id AS token_id, t.expires_at, i.id AS installation_id, i.scopes, a.id AS app_id, a.kind,
              s.id AS store_id, s.handle, s.name, s.iana_timezone, s.status, s.plan_expires_at, s.catalog_revision
         FROM access_tokens t
         JOIN installations i ON i.id = t.installation_id
         JOIN apps a ON a.id = i.app_id
         JOIN stores s ON s.id = i.store_id
        WHERE t.token_hash = ?`,
      [tokenHash],
      // One plan whatever the hash (unique indexes): planned once per connection (docs/performance.md).
      { prepare: true },
    );
    return rows[0];
  }

  async create(tx: TransactionClient, installationId: bigint, token: { tokenHash: string; expiresAt: Date }, now: Date): Promise<void> {
    await tx.accessToken.create({ data: { installationId, tokenHash: token.tokenHash, expiresAt: token.expiresAt, createdAt: now } });
  }

  /**
   * decisions §5.3-§5.4: the installation's current tokens get exactly 5 more minutes (never past
   * their own expiry) and are marked replaced; then the new one is stored.
   */
  async replace(tx: TransactionClient, installationId: bigint, token: { tokenHash: string; expiresAt: Date }, now: Date): Promise<void> {
    const current = await tx.accessToken.findMany({ where: { installationId, supersededAt: null } });
    for (const old of current) {
      await tx.accessToken.update({ where: { id: old.id }, data: { supersededAt: now, expiresAt: graceExpiry(now, old.expiresAt) } });
    }
    await this.create(tx, installationId, token, now);
  }

  /** Every token of the installation, those in their grace minutes too: invalid at once. */
  async revokeAll(tx: TransactionClient, installationId: bigint): Promise<void> {
    await tx.accessToken.deleteMany({ where: { installationId } });
  }

  /** The installation's tokens not replaced by a refresh (at most one, unless two refreshes raced). */
  current(installationId: bigint): Promise<{ id: bigint; expiresAt: Date }[]> {
    return this.db.prisma.accessToken.findMany({ where: { installationId, supersededAt: null }, select: { id: true, expiresAt: true } });
  }
}
