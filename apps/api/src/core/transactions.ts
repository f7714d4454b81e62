import { Injectable } from '@nestjs/common';
import type { Db, TransactionClient } from '@platform/db';
import { InjectDb } from './injection';

/**
 * One database transaction that several features' repositories take part in (a code exchanged and
 * its token stored, an app and its first token): the service that owns the operation runs it and
 * hands the transaction to each repository, so no repository reaches into another feature's tables
 * and no service holds the ORM.
 */
@Injectable()
export class Transactions {
  constructor(@InjectDb() private readonly db: Db) {}

  run<T>(work: (tx: TransactionClient) => Promise<T>, options?: { timeout?: number; maxWait?: number }): Promise<T> {
    return this.db.prisma.$transaction(work, options);
  }
}
