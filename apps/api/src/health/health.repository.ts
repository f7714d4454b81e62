import { Injectable } from '@nestjs/common';
import type { Db } from '@platform/db';
import { InjectDb } from '../core/injection';

/** What readiness asks of the database: that it answers. */
@Injectable()
export class HealthRepository {
  constructor(@InjectDb() private readonly db: Db) {}

  async ping(): Promise<void> {
    await this.db.query('SELECT 1 AS ok');
  }
}
