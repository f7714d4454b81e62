import { envReader, readSharedSettings, type LogLevel } from '@platform/db';

/** decisions §12.4: every variable the service reads, validated once at start. */
export interface Config {
  databaseUrl: string;
  host: string;
  port: number;
  baseDomain: string;
  operatorToken: string;
  secret: string;
  /**
   * Issue 15, rotating PLATFORM_SECRET: the previous secret, still accepted (never used to sign)
   * until `until`, so cursors and merchant forms made before the rotation keep working.
   */
  previousSecret: { value: string; until: Date } | undefined;
  clock: 'system' | 'manual';
  webhookAllowPrivate: boolean;
  seedDemo: boolean;
  /** The demo store's token when given (the start command generates one for development). */
  demoToken: string | undefined;
  sender: 'embedded' | 'off';
  /** Set by the start command when it generated the operator token: only then is it printed. */
  showOperatorToken: boolean;
  redisUrl: string | undefined;
  smtpUrl: string | undefined;
  logLevel: LogLevel;
  trustProxy: boolean;
  sqliteDriver: 'libsql' | 'better-sqlite3';
  /** decisions §7.1: the leaky bucket per (app, store). */
  rateLimit: { capacity: number; leakPerSecond: number };
  /** decisions §5.4: how often private tokens are checked for their 30-day expiry reminder (0: never). */
  tokenReminderIntervalMs: number;
  /** decisions §8.12: the background re-check of metafield values. */
  metafieldRecheck: { intervalMs: number; batchSize: number; leaseMs: number };
  /** Connection limits (docs/security.md): slow or idle clients cannot hold sockets for ever. */
  http: HttpLimits;
  /** docs/performance.md: bytes of answered listing pages kept in memory (0: none). */
  listingCacheBytes: number;
  /** decisions §12.3: the listener that serves /metrics without a token (port 0: none). */
  metrics: { port: number; host: string };
  /** Issue 15: `auto` migrates at start, `check` refuses to start on a schema behind the code. */
  migrate: 'auto' | 'check';
  /** Issue 15: after SIGTERM, how long the replica reports not ready before it stops accepting. */
  drainDelayMs: number;
  /** Issue 15: then, how long requests in flight may take before they are cut. */
  drainTimeoutMs: number;
}

export interface HttpLimits {
  /** The whole request, headers and body, must arrive within this (408 otherwise). */
  requestTimeoutMs: number;
  /** The request line and headers must arrive within this (408 otherwise); at most requestTimeoutMs. */
  headersTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** A socket with no traffic in either direction for this long is closed. */
  idleTimeoutMs: number;
  /** Open connections at once; more are refused at accept. */
  maxConnections: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const read = envReader(env, problems);
  const { databaseUrl, sqliteDriver, clock, baseDomain, webhookAllowPrivate, logLevel, migrate } = readSharedSettings(env, problems);

  const host = env.HOST || '127.0.0.1';
  const portRaw = env.PORT ?? '3000';
  const port = /^\d+$/.test(portRaw) ? Number(portRaw) : NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`PORT: must be an integer 0..65535 (got '${portRaw}')`);

  const operatorToken = env.PLATFORM_OPERATOR_TOKEN ?? '';
  if (operatorToken.length < 16) problems.push('PLATFORM_OPERATOR_TOKEN: required, at least 16 characters');

  const secret = env.PLATFORM_SECRET ?? '';
  if (secret.length < 16) problems.push('PLATFORM_SECRET: required, at least 16 characters (signs pagination cursors)');

  const previousSecret = readPreviousSecret(env, secret, problems);

  const seedDemo = read.bool('PLATFORM_SEED_DEMO', true);
  const demoToken = env.PLATFORM_DEMO_TOKEN || undefined;
  if (demoToken !== undefined && !/^[A-Za-z0-9_-]{32,}$/.test(demoToken)) {
    problems.push('PLATFORM_DEMO_TOKEN: must be at least 32 URL-safe characters (A-Z a-z 0-9 _ -)');
  }
  const sender = read.oneOf('PLATFORM_SENDER', ['embedded', 'off'] as const, 'embedded');
  const showOperatorToken = read.bool('PLATFORM_SHOW_OPERATOR_TOKEN', false);
  const trustProxy = read.bool('PLATFORM_TRUST_PROXY', false);

  const rateLimit = {
    capacity: read.positiveNumber('PLATFORM_RATE_LIMIT_CAPACITY', 40),
    leakPerSecond: read.positiveNumber('PLATFORM_RATE_LIMIT_LEAK_PER_SECOND', 4),
  };

  // Pause between polls when idle (0: no polling, passes run by hand), values per batch, claim lifetime.
  const metafieldRecheck = {
    intervalMs: read.integer('PLATFORM_METAFIELD_RECHECK_INTERVAL_MS', 250, 0),
    batchSize: read.integer('PLATFORM_METAFIELD_RECHECK_BATCH_SIZE', 200, 1),
    leaseMs: read.integer('PLATFORM_METAFIELD_RECHECK_LEASE_MS', 30_000, 1000),
  };

  const http: HttpLimits = {
    requestTimeoutMs: read.integer('PLATFORM_REQUEST_TIMEOUT_MS', 30_000, 100),
    headersTimeoutMs: read.integer('PLATFORM_HEADERS_TIMEOUT_MS', 10_000, 100),
    keepAliveTimeoutMs: read.integer('PLATFORM_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100),
    idleTimeoutMs: read.integer('PLATFORM_IDLE_TIMEOUT_MS', 60_000, 100),
    maxConnections: read.integer('PLATFORM_MAX_CONNECTIONS', 1024, 1),
  };
  // Node refuses a headers timeout longer than the request timeout.
  if (http.headersTimeoutMs > http.requestTimeoutMs) {
    problems.push(`PLATFORM_HEADERS_TIMEOUT_MS: must not exceed PLATFORM_REQUEST_TIMEOUT_MS (${http.requestTimeoutMs})`);
  }

  const tokenReminderIntervalMs = read.integer('PLATFORM_TOKEN_REMINDER_INTERVAL_MS', 60_000, 0);
  const drainDelayMs = read.integer('PLATFORM_DRAIN_DELAY_MS', 0, 0, 600_000);
  const drainTimeoutMs = read.integer('PLATFORM_DRAIN_TIMEOUT_MS', 10_000, 0);

  // docs/performance.md: answered product listing pages kept in memory, per process (0: none).
  const listingCacheBytes = read.integer('PLATFORM_LISTING_CACHE_MB', 64, 0, 65_536) * 1024 * 1024;

  // decisions §12.3: /metrics on the main listener needs the operator token; this port (0: none)
  // serves it without one, for an internal scraper, on a loopback address unless told otherwise.
  const metrics = {
    port: read.integer('PLATFORM_METRICS_PORT', 0, 0, 65_535),
    host: env.PLATFORM_METRICS_HOST || '127.0.0.1',
  };

  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl !== undefined && !/^rediss?:\/\/.+/.test(redisUrl)) problems.push(`REDIS_URL: must start with redis:// or rediss://`);
  const smtpUrl = env.PLATFORM_SMTP_URL || undefined;
  if (smtpUrl !== undefined && !/^smtps?:\/\/.+/.test(smtpUrl)) problems.push(`PLATFORM_SMTP_URL: must start with smtp:// or smtps://`);

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    databaseUrl, host, port, baseDomain, operatorToken, secret, previousSecret, clock, webhookAllowPrivate, seedDemo, demoToken,
    sender, showOperatorToken, redisUrl, smtpUrl, logLevel, trustProxy, sqliteDriver, rateLimit, metafieldRecheck, tokenReminderIntervalMs, http,
    migrate, drainDelayMs, drainTimeoutMs, metrics, listingCacheBytes,
  };
}

/** PLATFORM_SECRET_PREVIOUS with PLATFORM_SECRET_PREVIOUS_UNTIL (an ISO 8601 instant): both or neither. */
function readPreviousSecret(env: NodeJS.ProcessEnv, secret: string, problems: string[]): Config['previousSecret'] {
  const value = env.PLATFORM_SECRET_PREVIOUS || undefined;
  const untilRaw = env.PLATFORM_SECRET_PREVIOUS_UNTIL || undefined;
  if (value === undefined) {
    if (untilRaw !== undefined) problems.push('PLATFORM_SECRET_PREVIOUS_UNTIL: set only with PLATFORM_SECRET_PREVIOUS');
    return undefined;
  }
  if (value.length < 16) problems.push('PLATFORM_SECRET_PREVIOUS: at least 16 characters (the secret PLATFORM_SECRET replaces)');
  if (value === secret) problems.push('PLATFORM_SECRET_PREVIOUS: must differ from PLATFORM_SECRET');
  const until = untilRaw !== undefined && /^\d{4}-\d{2}-\d{2}T/.test(untilRaw) ? new Date(untilRaw) : undefined;
  if (until === undefined || Number.isNaN(until.getTime())) {
    problems.push(`PLATFORM_SECRET_PREVIOUS_UNTIL: required with PLATFORM_SECRET_PREVIOUS, an ISO 8601 instant such as 2026-12-01T00:00:00Z (got '${untilRaw ?? ''}')`);
    return undefined;
  }
  return { value, until };
}

/**
 * The secrets a cursor or a merchant form may be signed with: the current one, and the previous
 * one until its time is up (real time: a rotation is an operation, not service time).
 */
export function acceptedSecrets(config: Pick<Config, 'secret' | 'previousSecret'>, nowMs = Date.now()): string[] {
  const previous = config.previousSecret;
  return previous && nowMs < previous.until.getTime() ? [config.secret, previous.value] : [config.secret];
}
