import { decideIdempotentRepeat, DomainError, IDEMPOTENCY_KEY_TTL_MS, type Clock } from '@platform/domain';
import type { AnswerSeal, SealContext } from './answer-seal';
import type { IdempotencyRepository, IdempotencyRow } from './idempotency.repository';

/** A first request under its key, held by this replica until it answers. */
export interface IdempotencyClaim {
  readonly id: bigint;
  /** What its answer is sealed to and counted against. */
  readonly scope: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly expiresAt: Date;
  /** Stops renewing the claim. */
  stop(): void;
}

export type IdempotencyStart =
  | { kind: 'run'; claim: IdempotencyClaim }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'refuse'; error: DomainError; retryAfterSeconds?: number }
  /** The kept answer was sealed with a secret this replica does not hold (a rotation under way). */
  | { kind: 'unreadable' };

/** decisions §12.5: bytes of kept answers per (app, store) and for the operator (all its stores at once). */
export interface IdempotencyQuota {
  appStoreBytes: number;
  operatorBytes: number;
}

export interface IdempotencyOptions {
  /** How long a claim holds without renewal: a replica that died releases its keys after this (real time). */
  leaseMs?: number;
  /** A request still running after this stops renewing its claim, so its key cannot stay locked for a day. */
  maxHoldMs?: number;
  /** Expired keys are purged at most this often (service clock). */
  purgeEveryMs?: number;
}

const MINUTE_MS = 60_000;
const OPERATOR_QUOTA_SCOPE = 'operator';

/** Every operator key shares one quota; an app's keys have one per store (its scope). */
function quotaScopeOf(scope: string): string {
  return scope.startsWith('operator:') ? OPERATOR_QUOTA_SCOPE : scope;
}

/**
 * docs/idempotency.md: a POST's first answer under an `Idempotency-Key`, kept in the database for
 * 24 hours of the service clock (decisions §10) so every replica answers a repeat the same way,
 * sealed (answer-seal.ts) and counted against a quota in bytes (decisions §12.5).
 * Claims (who is serving a running key) use real time, as every duration about processes does.
 */
export class IdempotencyService {
  private readonly leaseMs: number;
  private readonly maxHoldMs: number;
  private readonly purgeEveryMs: number;
  private lastPurge = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly repository: IdempotencyRepository,
    private readonly clock: Clock,
    private readonly seal: AnswerSeal,
    private readonly quota: IdempotencyQuota,
    options: IdempotencyOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 30_000;
    this.maxHoldMs = options.maxHoldMs ?? 10 * 60_000;
    this.purgeEveryMs = options.purgeEveryMs ?? 60_000;
  }

  async start(scope: string, key: string, fingerprint: string): Promise<IdempotencyStart> {
    const now = this.clock.now();
    await this.purgeIfDue(now);
    const quotaScope = quotaScopeOf(scope);
    const limit = quotaScope === OPERATOR_QUOTA_SCOPE ? this.quota.operatorBytes : this.quota.appStoreBytes;
    // Decided before anything is written: past the quota a new key is refused, while a key already
    // kept still replays (a replay writes nothing).
    const full = (await this.repository.usedBytes(quotaScope, Math.floor(now.getTime() / MINUTE_MS))) >= BigInt(limit);
    const overQuota = async (): Promise<IdempotencyStart> => ({
      kind: 'refuse',
      error: quotaExceeded(quotaScope),
      retryAfterSeconds: await this.secondsUntilUnder(quotaScope, limit, now),
    });
    // A few rounds: a key may vanish (released, expired) or be taken over between two reads.
    for (let round = 0; round < 3; round += 1) {
      const realNow = Date.now();
      const expiresAt = new Date(now.getTime() + IDEMPOTENCY_KEY_TTL_MS);
      const id = full
        ? undefined
        : await this.repository.claim({
            scope,
            key,
            fingerprint,
            createdAt: now,
            expiresAt,
            lockedUntil: new Date(realNow + this.leaseMs),
          });
      if (id !== undefined) return { kind: 'run', claim: this.hold(id, { scope, key, fingerprint, expiresAt }) };
      const stored = await this.repository.find(scope, key);
      if (!stored) {
        if (full) return overQuota();
        continue;
      }
      switch (decideIdempotentRepeat(stored, { fingerprint, now, realNow: new Date(realNow) })) {
        case 'replay':
          return this.replay(stored, { scope, key, fingerprint, status: stored.status! });
        case 'mismatch':
          return {
            kind: 'refuse',
            error: new DomainError(
              'IDEMPOTENCY_KEY_REUSED',
              'This Idempotency-Key was used for another request (another method, path or body); send a new key with a new request',
            ),
          };
        case 'in-progress':
          return { kind: 'refuse', error: inUse() };
        case 'expired':
          await this.repository.deleteExpired(now, stored.id);
          continue;
        case 'abandoned':
          // Running it would keep a new answer: past the quota, as a new key is.
          if (full) return overQuota();
          if (await this.repository.takeOver(stored.id, stored.lockedUntil!, new Date(realNow + this.leaseMs))) {
            return { kind: 'run', claim: this.hold(stored.id, { scope, key, fingerprint, expiresAt: stored.expiresAt }) };
          }
          continue;
      }
    }
    return { kind: 'refuse', error: inUse() };
  }

  /**
   * Stores the first answer, sealed, and counts its bytes. A 5xx, or an answer that could not be
   * kept, releases the key instead: the request did not (knowingly) succeed, so a retry runs for real.
   */
  async finish(claim: IdempotencyClaim, status: number, body: string | undefined): Promise<void> {
    claim.stop();
    if (status >= 500 || body === undefined) return this.repository.release(claim.id);
    let sealed: Buffer;
    try {
      sealed = await this.seal.seal(body, { scope: claim.scope, key: claim.key, fingerprint: claim.fingerprint, status });
    } catch (error) {
      await this.repository.release(claim.id);
      throw error;
    }
    if (await this.repository.complete(claim.id, status, sealed)) {
      // Counted in the minute its key expires by: from then on these bytes no longer count.
      await this.repository.addUsage(quotaScopeOf(claim.scope), Math.ceil(claim.expiresAt.getTime() / MINUTE_MS), sealed.length);
    }
  }

  private async replay(stored: IdempotencyRow, context: SealContext): Promise<IdempotencyStart> {
    const answer = stored.answer;
    // A plain answer is one a release before sealing kept: it replays until its 24 hours are over.
    if (answer?.kind !== 'sealed') return { kind: 'replay', status: context.status, body: answer?.body ?? '' };
    const body = await this.seal.open(answer.bytes, context);
    return body === undefined ? { kind: 'unreadable' } : { kind: 'replay', status: context.status, body };
  }

  /**
   * Whole seconds until the kept answers that will have expired bring the scope under its quota
   * (none new counted): when a keyed POST would be taken again. At least 1.
   */
  private async secondsUntilUnder(quotaScope: string, limit: number, now: Date): Promise<number> {
    const minutes = await this.repository.usageByMinute(quotaScope, Math.floor(now.getTime() / MINUTE_MS));
    let kept = minutes.reduce((sum, m) => sum + m.bytes, 0n);
    for (const minute of minutes) {
      kept -= minute.bytes;
      if (kept < BigInt(limit)) return Math.max(1, Math.ceil((minute.expiresMinute * MINUTE_MS - now.getTime()) / 1000));
    }
    return 1;
  }

  private hold(id: bigint, row: Omit<IdempotencyClaim, 'id' | 'stop'>): IdempotencyClaim {
    const until = Date.now() + this.maxHoldMs;
    const timer = setInterval(
      () => {
        if (Date.now() >= until) return clearInterval(timer);
        // A failed renewal is retried at the next tick; the claim holds a whole lease meanwhile.
        this.repository.renew(id, new Date(Date.now() + this.leaseMs)).catch(() => undefined);
      },
      Math.max(1, Math.floor(this.leaseMs / 3)),
    );
    timer.unref();
    return { id, ...row, stop: () => clearInterval(timer) };
  }

  private async purgeIfDue(now: Date): Promise<void> {
    if (Math.abs(now.getTime() - this.lastPurge) < this.purgeEveryMs) return;
    this.lastPurge = now.getTime();
    await this.repository.deleteExpired(now);
    await this.repository.deleteUsageUntil(Math.floor(now.getTime() / MINUTE_MS));
  }
}

function inUse(): DomainError {
  return new DomainError(
    'IDEMPOTENCY_KEY_IN_USE',
    'A request with this Idempotency-Key is still being processed; send it again once that one has answered',
  );
}

function quotaExceeded(quotaScope: string): DomainError {
  const whose = quotaScope === OPERATOR_QUOTA_SCOPE ? "the operator's Idempotency-Keys" : "this app's Idempotency-Keys on this store";
  return new DomainError(
    'IDEMPOTENCY_QUOTA_EXCEEDED',
    `The answers kept for ${whose} have reached their quota; send this request again after Retry-After seconds, or without an Idempotency-Key`,
  );
}
