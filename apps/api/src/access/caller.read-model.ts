import { Injectable } from '@nestjs/common';
import type { Db } from '@platform/db';
import { InjectDb } from '../core/injection';

/** A token's row joined with what every Admin API request needs to know about its caller. */
export interface CallerRow {
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

/**
 * A read model (docs/architecture.md, "Tables and their owners"): the tables of tokens, apps and
 * stores read in the one indexed join every Admin API request makes, straight to the driver. It
 * reads only; their rooms write them.
 */
@Injectable()
export class CallerReadModel {
  constructor(@InjectDb() private readonly db: Db) {}

  async findByTokenHash(tokenHash: string): Promise<CallerRow | undefined> {
    const rows = await this.db.query<CallerRow>(
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
}
