import type { Db } from '@platform/db';
import type { StoredIdempotencyKey } from '@platform/domain';
import { isUniqueViolation } from '../core/prisma-errors';

/**
 * A stored key. `answer`: the sealed body (`sealed`), the plain text a release before sealing kept
 * (`plain`, replayed as it is until its 24 hours are over), or none while running.
 */
export type IdempotencyRow = StoredIdempotencyKey & {
  id: bigint;
  status: number | null;
  answer: { kind: 'sealed'; bytes: Uint8Array } | { kind: 'plain'; body: string } | undefined;
};

/** Bytes of kept answers in one quota scope that expire by the end of one minute (service clock). */
export interface UsageMinute {
  expiresMinute: number;
  bytes: bigint;
}

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
      select: { id: true, fingerprint: true, state: true, expiresAt: true, lockedUntil: true, status: true, body: true, sealed: true },
    });
    if (!row) return undefined;
    const { body, sealed, state, ...rest } = row;
    if (state === 'sealed' && sealed !== null) return { ...rest, state: 'done', answer: { kind: 'sealed', bytes: sealed } };
    if (state === 'done') return { ...rest, state: 'done', answer: { kind: 'plain', body: body ?? '' } };
    return { ...rest, state: 'running', answer: undefined };
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

  /** Keeps the sealed answer of a running key; false when the key is no longer this request's. */
  async complete(id: bigint, status: number, sealed: Buffer): Promise<boolean> {
    const { count } = await this.db.prisma.idempotencyKey.updateMany({
      where: { id, state: 'running' },
      data: { state: 'sealed', status, sealed: new Uint8Array(sealed), lockedUntil: null },
    });
    return count === 1;
  }

  /** Counts `bytes` more in the quota scope's minute (one atomic statement: replicas add at once). */
  async addUsage(quotaScope: string, expiresMinute: number, bytes: number): Promise<void> {
    await this.db.prisma.$executeRaw`INSERT INTO idempotency_usage (quota_scope, expires_minute, bytes)
      VALUES (${quotaScope}, ${expiresMinute}, ${BigInt(bytes)})
      ON CONFLICT (quota_scope, expires_minute) DO UPDATE SET bytes = idempotency_usage.bytes + excluded.bytes`;
  }

  /** Bytes kept in the quota scope that expire after `nowMinute` (at most a day of minute rows). */
  async usedBytes(quotaScope: string, nowMinute: number): Promise<bigint> {
    const { _sum } = await this.db.prisma.idempotencyUsage.aggregate({
      where: { quotaScope, expiresMinute: { gt: nowMinute } },
      _sum: { bytes: true },
    });
    return _sum.bytes ?? 0n;
  }

  /** The same, minute by minute, soonest first. */
  async usageByMinute(quotaScope: string, nowMinute: number): Promise<UsageMinute[]> {
    return this.db.prisma.idempotencyUsage.findMany({
      where: { quotaScope, expiresMinute: { gt: nowMinute } },
      select: { expiresMinute: true, bytes: true },
      orderBy: { expiresMinute: 'asc' },
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

  /** Deletes the usage of minutes that have passed (they no longer count). */
  async deleteUsageUntil(nowMinute: number): Promise<void> {
    await this.db.prisma.idempotencyUsage.deleteMany({ where: { expiresMinute: { lte: nowMinute } } });
  }
}
