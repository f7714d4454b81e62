import type { Clock } from './clock';

/** decisions §7.1: the service's bucket per (app, store). Match it if the platform team configured another. */
export interface RateLimitOptions {
  /** Requests the bucket holds (default 40). */
  capacity?: number;
  /** Requests it drains per second (default 4). */
  leakPerSecond?: number;
}

export interface ThrottleInfo {
  waitMs: number;
  used: number;
  capacity: number;
}

export interface LeakyBucket {
  /** Waits until one more request fits, then counts it. FIFO: a busy app's requests go out in the order asked. */
  acquire(signal?: AbortSignal, onThrottle?: (info: ThrottleInfo) => void): Promise<void>;
  /** Resyncs with `X-Platform-Api-Call-Limit: used/capacity` (decisions §7.3), e.g. when other processes share the token. */
  observe(header: string | null): void;
  /** After a 429: nobody sends before `Retry-After` has passed. */
  holdFor(seconds: number): void;
  readonly state: { used: number; capacity: number };
}

const CALL_LIMIT = /^\s*(\d+)\s*\/\s*(\d+)\s*$/;

/**
 * A client-side copy of the service's leaky bucket (decisions §7.1): each request fills one unit,
 * the bucket drains `leakPerSecond` units a second, a request that would overflow waits for the
 * drain instead of meeting a 429. Counted at send time, which is never later than the service counts,
 * so the copy never under-estimates.
 */
export function createLeakyBucket(options: RateLimitOptions & { clock: Clock }): LeakyBucket {
  let capacity = options.capacity ?? 40;
  const leak = options.leakPerSecond ?? 4;
  if (!(capacity >= 1) || !(leak > 0)) throw new RangeError('rateLimit: capacity must be >= 1 and leakPerSecond > 0');
  const { clock } = options;
  let level = 0;
  let at = clock.now();
  let holdUntil = 0;
  let queue: Promise<void> = Promise.resolve();

  const drain = () => {
    const now = clock.now();
    level = Math.max(0, level - ((now - at) / 1000) * leak);
    at = now;
    return now;
  };

  async function turn(signal?: AbortSignal, onThrottle?: (info: ThrottleInfo) => void): Promise<void> {
    for (;;) {
      const now = drain();
      let waitMs = holdUntil > now ? holdUntil - now : 0;
      if (waitMs === 0 && level + 1 <= capacity) {
        level += 1;
        return;
      }
      if (waitMs === 0) waitMs = Math.ceil(((level + 1 - capacity) / leak) * 1000);
      onThrottle?.({ waitMs, used: Math.ceil(level), capacity });
      await clock.sleep(waitMs, signal);
    }
  }

  return {
    acquire(signal, onThrottle) {
      const mine = queue.then(() => turn(signal, onThrottle));
      // One aborted waiter must not stall the ones behind it.
      queue = mine.catch(() => undefined);
      return mine;
    },
    observe(header) {
      const m = header ? CALL_LIMIT.exec(header) : null;
      if (!m) return;
      drain();
      const cap = Number(m[2]);
      if (cap >= 1) capacity = cap;
      // The service knows requests this copy does not (another process, another client with the same token).
      level = Math.max(level, Number(m[1]));
    },
    holdFor(seconds) {
      const now = drain();
      holdUntil = Math.max(holdUntil, now + seconds * 1000);
      level = Math.max(level, capacity);
    },
    get state() {
      drain();
      return { used: level, capacity };
    },
  };
}

const shared = new Map<string, LeakyBucket>();

/** One bucket per (store origin, access token) in this process, shared by every client made for that pair (decisions §7.1). */
export function sharedBucket(key: string, make: () => LeakyBucket): LeakyBucket {
  let bucket = shared.get(key);
  if (!bucket) {
    bucket = make();
    shared.set(key, bucket);
  }
  return bucket;
}
