import { createClient } from '@redis/client';
import { Logger } from '@nestjs/common';

/**
 * decisions §7: a leaky bucket per (app, store), capacity 40, leaking 4 requests a second. In
 * memory for one process; in Redis when REDIS_URL is set, so every API replica shares one bucket
 * per (app, store) (decisions §7.4).
 */
export interface RateDecision {
  allowed: boolean;
  used: number;
  capacity: number;
  retryAfterSeconds: number;
}

export interface RateLimiter {
  take(key: string): Promise<RateDecision>;
  close(): Promise<void>;
}

/** `Retry-After` in whole seconds, at least 1 (decisions §7.2), for a bucket at `level`. */
function refusal(level: number, capacity: number, leakPerSecond: number): RateDecision {
  const waitSeconds = (level + 1 - capacity) / leakPerSecond;
  return { allowed: false, used: Math.ceil(level), capacity, retryAfterSeconds: Math.max(1, Math.ceil(waitSeconds)) };
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
      return refusal(level, this.capacity, this.leakPerSecond);
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

/** One process's buckets, on real time (never the service clock: a standing manual clock would never leak). */
export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets: LeakyBucketLimiter;

  constructor(capacity: number, leakPerSecond: number) {
    this.buckets = new LeakyBucketLimiter(capacity, leakPerSecond);
  }

  take(key: string): Promise<RateDecision> {
    return Promise.resolve(this.buckets.take(key, Date.now()));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/*
 * The same bucket as LeakyBucketLimiter, read and written in one atomic script on Redis's own clock
 * (replicas' clocks may differ). The level is returned as text: Redis truncates Lua numbers.
 */
const TAKE_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local capacity = tonumber(ARGV[1])
local leak = tonumber(ARGV[2])
local bucket = redis.call('HMGET', KEYS[1], 'level', 'at')
local level = tonumber(bucket[1]) or 0
local at = tonumber(bucket[2]) or now
level = math.max(0, level - math.max(0, now - at) / 1000 * leak)
local allowed = 0
if level + 1 <= capacity then
  level = level + 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'level', tostring(level), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(level / leak * 1000) + 1000)
return { allowed, tostring(level) }
`;

/**
 * Buckets shared by every replica through Redis. When Redis cannot be reached the request is let
 * through (and the outage logged): a rate limiter must not take the API down with it.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly logger = new Logger('rate-limit');
  private readonly client;
  private lastWarning = 0;

  constructor(
    url: string,
    private readonly capacity: number,
    private readonly leakPerSecond: number,
  ) {
    this.client = createClient({ url, disableOfflineQueue: true, socket: { connectTimeout: 2000, reconnectStrategy: (retries) => Math.min(retries * 200, 2000) } });
    this.client.on('error', (error: Error) => this.warn(`Redis: ${error.message}`));
  }

  /** Connects, waiting at most `waitMs`: Redis being down delays nothing (requests pass until it is back). */
  async connect(waitMs = 2000): Promise<void> {
    const connected = this.client.connect().then(
      () => undefined,
      (error: Error) => this.warn(`Redis not reached, requests pass unlimited until it is: ${error.message}`),
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([connected, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  }

  async take(key: string): Promise<RateDecision> {
    try {
      const [allowed, levelText] = (await this.client.eval(TAKE_SCRIPT, {
        keys: [`platform:rate:${key}`],
        arguments: [String(this.capacity), String(this.leakPerSecond)],
      })) as [number, string];
      const level = Number(levelText);
      if (allowed === 1) return { allowed: true, used: Math.ceil(level), capacity: this.capacity, retryAfterSeconds: 0 };
      return refusal(level, this.capacity, this.leakPerSecond);
    } catch (error) {
      this.warn(`bucket not read, request let through: ${(error as Error).message}`);
      return { allowed: true, used: 0, capacity: this.capacity, retryAfterSeconds: 0 };
    }
  }

  async close(): Promise<void> {
    if (this.client.isOpen) await this.client.close();
    else this.client.destroy();
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < 10_000) return;
    this.lastWarning = now;
    this.logger.warn(message);
  }
}

/** The limiter the configuration asks for (decisions §7.4). */
export async function createRateLimiter(config: { redisUrl: string | undefined; rateLimit: { capacity: number; leakPerSecond: number } }): Promise<RateLimiter> {
  const { capacity, leakPerSecond } = config.rateLimit;
  if (!config.redisUrl) return new MemoryRateLimiter(capacity, leakPerSecond);
  const limiter = new RedisRateLimiter(config.redisUrl, capacity, leakPerSecond);
  await limiter.connect();
  return limiter;
}
