import type { createClient as CreateClient } from '@redis/client';
import { Logger } from '@nestjs/common';
import { redactUrl } from '@platform/db';
import { RedisConfigError } from './redis-config-error';

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
  /**
   * Dependencies this limiter works without for now (named on /readyz): `redis` while it is down or
   * does not answer within the budget. Asks Redis itself (within the budget) when no call has yet
   * found it so, so a stall is named without traffic too.
   */
  degraded(): Promise<string[]>;
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

  degraded(): Promise<string[]> {
    return Promise.resolve([]);
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
 * decisions §12.7: the longest a request waits for Redis. A call past it takes the in-process
 * bucket for that request, and Redis counts as stalled (SIGSTOP, a hung host, a network that drops
 * packets: connections open, nothing answered) until a probe answers within it again.
 */
export const REDIS_BUDGET_MS = 100;
/** While Redis is stalled, how often a PING asks whether it answers again (one at a time). */
const PROBE_INTERVAL_MS = 200;

export { RedisConfigError };

class OverBudget extends Error {}

/** How often a call waiting for Redis checks the time it has waited. */
const STEP_MS = 20;

/**
 * `call`, or OverBudget once it has waited `ms` without an answer. Time this process could not
 * have read an answer in (a timer step that came late: the event loop busy with other requests,
 * or the process not scheduled on a loaded machine) counts for at most two steps, so a busy
 * replica does not take its own slowness for Redis's silence; and an answer already waiting in
 * the socket is read (I/O is polled before setImmediate runs) before the call is given up. On an
 * idle process a stalled Redis costs the request `ms`.
 */
function withinBudget<T>(call: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let waited = 0;
    let last = Date.now();
    const step = () => {
      const now = Date.now();
      waited += Math.min(now - last, 2 * STEP_MS);
      last = now;
      if (waited < ms) {
        timer = setTimeout(step, Math.min(STEP_MS, ms - waited));
        return;
      }
      setImmediate(() => {
        if (settled) return;
        settled = true;
        reject(new OverBudget(`no answer within ${ms} ms`));
      });
    };
    let timer = setTimeout(step, Math.min(STEP_MS, ms));
    const settle = (then: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      then();
    };
    call.then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => reject(error as Error)),
    );
  });
}

/** Errors that say the URL itself is wrong, as opposed to Redis being down for now. */
const WRONG_URL = /ENOTFOUND|EAI_AGAIN|WRONGPASS|NOAUTH|invalid DB index|invalid password|invalid url|invalid protocol/i;
const isWrongUrl = (error: Error) => WRONG_URL.test(`${(error as { code?: string }).code ?? ''} ${error.message}`);

/**
 * Buckets shared by every replica through Redis. When Redis cannot be reached, or does not answer
 * within REDIS_BUDGET_MS, each replica falls back to its own in-memory bucket (a client still meets
 * 429s, never an unlimited API; across N replicas it may get up to N buckets' worth), logs one
 * warning, reports `redis` as degraded on /readyz, and uses the shared bucket again as soon as Redis
 * answers (issue 15, degraded modes; decisions §12.7). While Redis is stalled requests do not ask
 * it at all: one PING at a time does, and the first one answered within the budget ends the stall.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly logger = new Logger('rate-limit');
  private readonly client;
  private readonly local: LeakyBucketLimiter;
  private isDegraded = false;
  /** A call ran past the budget: requests use the local bucket until a probe answers within it. */
  private stalled = false;
  private probing = false;
  private closed = false;
  private startError: Error | undefined;
  /** While connect() waits, errors are only recorded: a wrong URL is then reported alone. */
  private connecting = true;
  /** Ends connect()'s wait early: a wrong URL was recorded, and waiting cannot mend it. */
  private stopWaiting: (() => void) | undefined;

  constructor(
    private readonly url: string,
    private readonly capacity: number,
    private readonly leakPerSecond: number,
  ) {
    this.local = new LeakyBucketLimiter(capacity, leakPerSecond);
    // Loaded only with REDIS_URL: its modules are about 0.15 s of CPU that a start without Redis
    // (SQLite, one replica) need not pay.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { createClient } = require('@redis/client') as { createClient: typeof CreateClient };
    try {
      this.client = createClient({
        url,
        disableOfflineQueue: true,
        socket: { connectTimeout: 2000, reconnectStrategy: (retries) => Math.min(retries * 200, 2000) },
      });
    } catch (error) {
      throw new RedisConfigError(`REDIS_URL: ${(error as Error).message}`);
    }
    this.client.on('error', (error: Error) => {
      this.startError ??= error;
      if (!this.connecting) this.degrade(`Redis unreachable (${error.message})`);
      else if (isWrongUrl(error)) this.stopWaiting?.();
    });
    // A new connection that is ready; a stall is ended by a probe only (a stalled server's kernel
    // still accepts connections).
    this.client.on('ready', () => {
      if (!this.stalled) this.recover();
    });
  }

  /**
   * Connects, waiting at most `waitMs`. Redis down or slow delays nothing: the replica starts on its
   * own buckets and switches to the shared ones when Redis answers. A URL that cannot work (unknown
   * host, refused credentials) is a RedisConfigError: the start stops with one line, as soon as the
   * client reports it (it does not wait out `waitMs`).
   */
  async connect(waitMs = 2000): Promise<void> {
    const connected = this.client.connect().then(
      () => undefined,
      (error: Error) => {
        this.startError ??= error;
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
      this.stopWaiting = resolve;
      // Recorded before the wait began (the client reports a failed lookup within milliseconds).
      if (this.startError && isWrongUrl(this.startError)) resolve();
    });
    await Promise.race([connected, waited]);
    clearTimeout(timer);
    this.stopWaiting = undefined;
    this.connecting = false;
    const error = this.startError;
    if (error && isWrongUrl(error)) {
      this.client.destroy();
      throw new RedisConfigError(`REDIS_URL: ${redactUrl(this.url)} cannot be used: ${error.message}`);
    }
    if (!this.client.isReady) this.degrade(`Redis unreachable (${error?.message ?? `no answer within ${waitMs} ms`})`);
  }

  async take(key: string): Promise<RateDecision> {
    if (!this.client.isReady) return this.fallback(key, 'Redis unreachable (not connected)');
    if (this.stalled) return this.local.take(key, Date.now());
    try {
      const evaluated = this.client.eval(TAKE_SCRIPT, {
        keys: [`platform:rate:${key}`],
        arguments: [String(this.capacity), String(this.leakPerSecond)],
      });
      const [allowed, levelText] = (await withinBudget(evaluated, REDIS_BUDGET_MS)) as [number, string];
      this.recover();
      const level = Number(levelText);
      if (allowed === 1) return { allowed: true, used: Math.ceil(level), capacity: this.capacity, retryAfterSeconds: 0 };
      return refusal(level, this.capacity, this.leakPerSecond);
    } catch (error) {
      if (error instanceof OverBudget) this.stall();
      return this.fallback(key, this.describe(error));
    }
  }

  async degraded(): Promise<string[]> {
    if (this.client.isReady && !this.stalled) {
      // decisions §12.7: /readyz names Redis while its calls time out, traffic or not.
      try {
        await withinBudget(this.client.ping(), REDIS_BUDGET_MS);
        this.recover();
      } catch (error) {
        if (error instanceof OverBudget) this.stall();
        this.degrade(this.describe(error));
      }
    }
    return this.isDegraded || this.stalled || !this.client.isReady ? ['redis'] : [];
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.client.isOpen) await this.client.close();
    else this.client.destroy();
  }

  private describe(error: unknown): string {
    return error instanceof OverBudget
      ? `Redis did not answer within ${REDIS_BUDGET_MS} ms`
      : `Redis unreachable (${(error as Error).message})`;
  }

  private fallback(key: string, why: string): RateDecision {
    this.degrade(why);
    return this.local.take(key, Date.now());
  }

  /** Requests stop asking Redis; one probe at a time asks until it answers within the budget. */
  private stall(): void {
    this.stalled = true;
    if (!this.probing) void this.probeUntilAnswered();
  }

  private async probeUntilAnswered(): Promise<void> {
    this.probing = true;
    try {
      await this.probe();
    } finally {
      // In the same turn as the end of the stall: a stall() after it starts a new probe.
      this.probing = false;
    }
  }

  private async probe(): Promise<void> {
    while (this.stalled && !this.closed) {
      const ping = this.client.ping();
      try {
        await withinBudget(ping, REDIS_BUDGET_MS);
        this.stalled = false;
        this.recover();
        return;
      } catch {
        // Over the budget (still stalled), not connected (the reconnect is under way) or refused.
      }
      // One PING at a time: while Redis is stalled the next waits for this one's answer.
      await ping.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS).unref());
    }
  }

  /** One warning per outage, however many requests, probes or reconnect attempts it spans. */
  private degrade(why: string): void {
    if (this.isDegraded) return;
    this.isDegraded = true;
    this.logger.warn(`${why}: rate limits use this replica's own in-memory buckets until it is back`);
  }

  /** A call answered (within the budget): the shared buckets are used again. */
  private recover(): void {
    if (!this.isDegraded || this.stalled) return;
    this.isDegraded = false;
    this.logger.warn('Redis is back: rate limits use the shared buckets again');
  }
}

/** The limiter the configuration asks for (decisions §7.4). */
export async function createRateLimiter(config: {
  redisUrl: string | undefined;
  rateLimit: { capacity: number; leakPerSecond: number };
}): Promise<RateLimiter> {
  const { capacity, leakPerSecond } = config.rateLimit;
  if (!config.redisUrl) return new MemoryRateLimiter(capacity, leakPerSecond);
  const limiter = new RedisRateLimiter(config.redisUrl, capacity, leakPerSecond);
  await limiter.connect();
  return limiter;
}
