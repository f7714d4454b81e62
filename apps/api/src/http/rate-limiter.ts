/**
 * decisions §7: a leaky bucket per (app, store), capacity 40, leaking 4 requests a second.
 * In-memory: one process. (Shared buckets for many replicas arrive with the Redis store.)
 */
export interface RateDecision {
  allowed: boolean;
  used: number;
  capacity: number;
  retryAfterSeconds: number;
}

export class LeakyBucketLimiter {
  private readonly buckets = new Map<string, { level: number; at: number }>();

  constructor(
    readonly capacity = 40,
    readonly leakPerSecond = 4,
  ) {}

  take(key: string, nowMs: number): RateDecision {
    const bucket = this.buckets.get(key) ?? { level: 0, at: nowMs };
    const leaked = Math.max(0, ((nowMs - bucket.at) / 1000) * this.leakPerSecond);
    const level = Math.max(0, bucket.level - leaked);
    if (level + 1 > this.capacity) {
      this.buckets.set(key, { level, at: nowMs });
      const waitSeconds = (level + 1 - this.capacity) / this.leakPerSecond;
      return { allowed: false, used: Math.ceil(level), capacity: this.capacity, retryAfterSeconds: Math.max(1, Math.ceil(waitSeconds)) };
    }
    this.buckets.set(key, { level: level + 1, at: nowMs });
    if (this.buckets.size > 100_000) this.evictIdle(nowMs);
    return { allowed: true, used: Math.ceil(level + 1), capacity: this.capacity, retryAfterSeconds: 0 };
  }

  private evictIdle(nowMs: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.level - ((nowMs - bucket.at) / 1000) * this.leakPerSecond <= 0) this.buckets.delete(key);
    }
  }
}
