import type { Db } from '@platform/db';
import type { StoredIdempotencyKey } from '@platform/domain';
import { isUniqueViolation } from '../core/prisma-errors';

export type IdempotencyRow = StoredIdempotencyKey & { id: bigint; status: number | null; body: string | null };

export interface NewIdempotencyKey {
  scope: string;
  key: string;
  fingerprint: string;
  createdAt: Date;
  expiresAt: Date;
  lockedUntil: Date;
}

/** The only caller of the database for idempotency keys (docs/idempotency.md). */
export class IdempotencyRepository {
  constructor(private readonly db: Db) {}

  /** The key, claimed as running; undefined when (scope, key) is already stored (by any replica). */
  async claim(row: NewIdempotencyKey): Promise<bigint | undefined> {
    try {
      const created = await this.db.prisma.idempotencyKey.create({ data: { ...row, state: 'running' }, select: { id: true } });
      return created.id;
    } catch (error) {
      if (isUniqueViolation(error)) return undefined;
      throw error;
    }
  }

  async find(scope: string, key: string): Promise<IdempotencyRow | undefined> {
    const row = await this.db.prisma.idempotencyKey.findUnique({
      where: { scope_key: { scope, key } },
      select: { id: true, fingerprint: true, state: true, expiresAt: true, lockedUntil: true, status: true, body: true },
    });
    return row ? { ...row, state: row.state === 'done' ? 'done' : 'running' } : undefined;
  }

  /** Claims a running key whose claim lapsed; false when another repeat took it first (compare and set). */
  async takeOver(id: bigint, lapsedClaim: Date, lockedUntil: Date): Promise<boolean> {
    const { count } = await this.db.prisma.idempotencyKey.updateMany({
      where: { id, state: 'running', lockedUntil: lapsedClaim },
      data: { lockedUntil },
    });
    return count === 1;
  }

  async renew(id: bigint, lockedUntil: Date): Promise<void> {
    await this.db.prisma.idempotencyKey.updateMany({ where: { id, state: 'running' }, data: { lockedUntil } });
  }

  async complete(id: bigint, status: number, body: string): Promise<void> {
    await this.db.prisma.idempotencyKey.updateMany({
      where: { id, state: 'running' },
      data: { state: 'done', status, body, lockedUntil: null },
    });
  }

  /** Forgets a running key, so that a repeat runs for real. */
  async release(id: bigint): Promise<void> {
    await this.db.prisma.idempotencyKey.deleteMany({ where: { id, state: 'running' } });
  }

  /** Deletes keys expired at `now` (service clock): all of them, or the one given. */
  async deleteExpired(now: Date, id?: bigint): Promise<number> {
    const { count } = await this.db.prisma.idempotencyKey.deleteMany({
      where: { expiresAt: { lte: now }, ...(id !== undefined ? { id } : {}) },
    });
    return count;
  }
}
