import { decideIdempotentRepeat, DomainError, IDEMPOTENCY_KEY_TTL_MS, type Clock } from '@platform/domain';
import type { IdempotencyRepository } from './idempotency.repository';

/** A first request under its key, held by this replica until it answers. */
export interface IdempotencyClaim {
  readonly id: bigint;
  /** Stops renewing the claim. */
  stop(): void;
}

export type IdempotencyStart =
  { kind: 'run'; claim: IdempotencyClaim } | { kind: 'replay'; status: number; body: string } | { kind: 'refuse'; error: DomainError };

export interface IdempotencyOptions {
  /** How long a claim holds without renewal: a replica that died releases its keys after this (real time). */
  leaseMs?: number;
  /** A request still running after this stops renewing its claim, so its key cannot stay locked for a day. */
  maxHoldMs?: number;
  /** Expired keys are purged at most this often (service clock). */
  purgeEveryMs?: number;
}

/**
 * docs/idempotency.md: a POST's first answer under an `Idempotency-Key`, kept in the database for
 * 24 hours of the service clock (decisions §10) so every replica answers a repeat the same way.
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
    options: IdempotencyOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 30_000;
    this.maxHoldMs = options.maxHoldMs ?? 10 * 60_000;
    this.purgeEveryMs = options.purgeEveryMs ?? 60_000;
  }

  async start(scope: string, key: string, fingerprint: string): Promise<IdempotencyStart> {
    const now = this.clock.now();
    await this.purgeIfDue(now);
    // A few rounds: a key may vanish (released, expired) or be taken over between two reads.
    for (let round = 0; round < 3; round += 1) {
      const realNow = Date.now();
      const id = await this.repository.claim({
        scope,
        key,
        fingerprint,
        createdAt: now,
        expiresAt: new Date(now.getTime() + IDEMPOTENCY_KEY_TTL_MS),
        lockedUntil: new Date(realNow + this.leaseMs),
      });
      if (id !== undefined) return { kind: 'run', claim: this.hold(id) };
      const stored = await this.repository.find(scope, key);
      if (!stored) continue;
      switch (decideIdempotentRepeat(stored, { fingerprint, now, realNow: new Date(realNow) })) {
        case 'replay':
          return { kind: 'replay', status: stored.status!, body: stored.body ?? '' };
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
          if (await this.repository.takeOver(stored.id, stored.lockedUntil!, new Date(realNow + this.leaseMs))) {
            return { kind: 'run', claim: this.hold(stored.id) };
          }
          continue;
      }
    }
    return { kind: 'refuse', error: inUse() };
  }

  /**
   * Stores the first answer. A 5xx, or an answer that could not be kept, releases the key instead:
   * the request did not (knowingly) succeed, so a retry runs for real.
   */
  async finish(claim: IdempotencyClaim, status: number, body: string | undefined): Promise<void> {
    claim.stop();
    if (status >= 500 || body === undefined) await this.repository.release(claim.id);
    else await this.repository.complete(claim.id, status, body);
  }

  private hold(id: bigint): IdempotencyClaim {
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
    return { id, stop: () => clearInterval(timer) };
  }

  private async purgeIfDue(now: Date): Promise<void> {
    if (Math.abs(now.getTime() - this.lastPurge) < this.purgeEveryMs) return;
    this.lastPurge = now.getTime();
    await this.repository.deleteExpired(now);
  }
}

function inUse(): DomainError {
  return new DomainError(
    'IDEMPOTENCY_KEY_IN_USE',
    'A request with this Idempotency-Key is still being processed; send it again once that one has answered',
  );
}
