import type { z } from 'zod';
import { env, envVariable, parseEnv, ZSharedEnv, sharedSettingsOf, type LogLevel } from '@platform/db';
import { readTrustedProxies, type TrustedProxies } from './core/trusted-proxies';

/** decisions §12.4: every variable the service reads, validated once at start. */
/** The demo store's handle (decisions §12: the start command seeds it and prints its sign-in link). */
export const DEMO_HANDLE = 'demo';

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
  /** Where a manual clock starts when no process has read it yet (PLATFORM_CLOCK_START; unset: real time). */
  clockStart: Date | undefined;
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
  /** decisions §12.6: the addresses and CIDRs X-Forwarded-* are believed from (empty: none). */
  /** decisions §12.6: the balancer's addresses X-Forwarded-* is believed from, or every hop (`true`). */
  trustProxy: TrustedProxies;
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
  /** decisions §12.5: bytes of kept (sealed) answers of Idempotency-Keys per (app, store), and for the operator. */
  idempotencyQuota: { appStoreBytes: number; operatorBytes: number };
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

/** A secret of at least 16 characters, required. */
function requiredSecret(message: string) {
  return envVariable('', (raw) => ((raw ?? '').length >= 16 ? { ok: true, value: raw ?? '' } : { ok: false, message }));
}

/** decisions §12.4: the API's variables beside the shared ones (docs/production.md lists them). */
const ZApiEnv = ZSharedEnv.extend({
  // An empty HOST is refused, as an empty PORT is (a value that cannot be meant).
  HOST: envVariable('127.0.0.1', (raw = '127.0.0.1') =>
    raw.trim() !== '' && !/\s/.test(raw)
      ? { ok: true, value: raw }
      : { ok: false, message: `must be a host name or address (got '${raw}')` },
  ),
  // An empty PORT is refused, not taken as unset.
  PORT: envVariable(3000, (raw = '3000') => {
    const port = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (Number.isInteger(port) && port >= 0 && port <= 65535) return { ok: true, value: port };
    return { ok: false, message: `must be an integer 0..65535 (got '${raw}')` };
  }),
  // Sent as `Authorization: Bearer <token>`: a token with spaces or control characters could never be
  // sent as it is (HTTP trims and splits header values), and would lock the operator API.
  PLATFORM_OPERATOR_TOKEN: envVariable('', (raw = '') =>
    /^[\x21-\x7e]{16,}$/.test(raw)
      ? { ok: true, value: raw }
      : { ok: false, message: 'required, at least 16 characters, printable ASCII without spaces (it is sent in an Authorization header)' },
  ),
  PLATFORM_SECRET: requiredSecret('required, at least 16 characters (signs pagination cursors)'),
  PLATFORM_SECRET_PREVIOUS: env.text(''),
  PLATFORM_SECRET_PREVIOUS_UNTIL: env.text(''),
  PLATFORM_SEED_DEMO: env.bool(true),
  PLATFORM_DEMO_TOKEN: env.optionalMatching(/^[A-Za-z0-9_-]{32,}$/, 'must be at least 32 URL-safe characters (A-Z a-z 0-9 _ -)'),
  PLATFORM_SENDER: env.oneOf(['embedded', 'off'], 'embedded'),
  PLATFORM_SHOW_OPERATOR_TOKEN: env.bool(false),
  PLATFORM_TRUST_PROXY: envVariable<TrustedProxies>([], readTrustedProxies),
  PLATFORM_RATE_LIMIT_CAPACITY: env.positiveNumber(40),
  PLATFORM_RATE_LIMIT_LEAK_PER_SECOND: env.positiveNumber(4),
  // Pause between polls when idle (0: no polling, passes run by hand), values per batch, claim lifetime.
  PLATFORM_METAFIELD_RECHECK_INTERVAL_MS: env.integer(250, 0),
  PLATFORM_METAFIELD_RECHECK_BATCH_SIZE: env.integer(1000, 1),
  PLATFORM_METAFIELD_RECHECK_LEASE_MS: env.integer(30_000, 1000),
  PLATFORM_REQUEST_TIMEOUT_MS: env.integer(30_000, 100),
  PLATFORM_HEADERS_TIMEOUT_MS: env.integer(10_000, 100),
  PLATFORM_KEEP_ALIVE_TIMEOUT_MS: env.integer(5_000, 100),
  PLATFORM_IDLE_TIMEOUT_MS: env.integer(60_000, 100),
  PLATFORM_MAX_CONNECTIONS: env.integer(1024, 1),
  PLATFORM_TOKEN_REMINDER_INTERVAL_MS: env.integer(60_000, 0),
  PLATFORM_DRAIN_DELAY_MS: env.integer(0, 0, 600_000),
  PLATFORM_DRAIN_TIMEOUT_MS: env.integer(10_000, 0),
  // docs/performance.md: answered product listing pages kept in memory, per process (0: none).
  PLATFORM_LISTING_CACHE_MB: env.integer(64, 0, 65_536),
  // decisions §12.5, docs/idempotency.md "Quota": kept answers (compressed and sealed) per (app,
  // store) and for the operator (all stores); decimals allowed (0.5 = 512 KB).
  PLATFORM_IDEMPOTENCY_QUOTA_MB: env.positiveNumber(64),
  PLATFORM_IDEMPOTENCY_OPERATOR_QUOTA_MB: env.positiveNumber(256),
  // decisions §12.3: /metrics on the main listener needs the operator token; this port (0: none)
  // serves it without one, for an internal scraper, on a loopback address unless told otherwise.
  PLATFORM_METRICS_PORT: env.integer(0, 0, 65_535),
  PLATFORM_METRICS_HOST: env.text('127.0.0.1'),
  REDIS_URL: env.optionalMatching(/^rediss?:\/\/.+/, 'must start with redis:// or rediss://'),
  PLATFORM_SMTP_URL: env.optionalMatching(/^smtps?:\/\/.+/, 'must start with smtp:// or smtps://'),
}).superRefine((e, ctx) => {
  // Node refuses a headers timeout longer than the request timeout.
  if (e.PLATFORM_HEADERS_TIMEOUT_MS > e.PLATFORM_REQUEST_TIMEOUT_MS) {
    ctx.addIssue({
      code: 'custom',
      path: ['PLATFORM_HEADERS_TIMEOUT_MS'],
      message: `must not exceed PLATFORM_REQUEST_TIMEOUT_MS (${e.PLATFORM_REQUEST_TIMEOUT_MS})`,
    });
  }
  const previous = previousSecretOf(e);
  for (const [variable, message] of previous.problems) ctx.addIssue({ code: 'custom', path: [variable], message });
});

type ApiEnv = z.output<typeof ZApiEnv>;

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = parseEnv(ZApiEnv, source);
  if (!parsed.ok) throw new ConfigError(parsed.problems);
  const e = parsed.value;
  const { databaseUrl, sqliteDriver, clock, clockStart, baseDomain, webhookAllowPrivate, logLevel, migrate } = sharedSettingsOf(e);
  return {
    databaseUrl,
    host: e.HOST,
    port: e.PORT,
    baseDomain,
    operatorToken: e.PLATFORM_OPERATOR_TOKEN,
    secret: e.PLATFORM_SECRET,
    previousSecret: previousSecretOf(e).value,
    clock,
    clockStart,
    webhookAllowPrivate,
    seedDemo: e.PLATFORM_SEED_DEMO,
    demoToken: e.PLATFORM_DEMO_TOKEN,
    sender: e.PLATFORM_SENDER,
    showOperatorToken: e.PLATFORM_SHOW_OPERATOR_TOKEN,
    redisUrl: e.REDIS_URL,
    smtpUrl: e.PLATFORM_SMTP_URL,
    logLevel,
    trustProxy: e.PLATFORM_TRUST_PROXY,
    sqliteDriver,
    rateLimit: { capacity: e.PLATFORM_RATE_LIMIT_CAPACITY, leakPerSecond: e.PLATFORM_RATE_LIMIT_LEAK_PER_SECOND },
    metafieldRecheck: {
      intervalMs: e.PLATFORM_METAFIELD_RECHECK_INTERVAL_MS,
      batchSize: e.PLATFORM_METAFIELD_RECHECK_BATCH_SIZE,
      leaseMs: e.PLATFORM_METAFIELD_RECHECK_LEASE_MS,
    },
    tokenReminderIntervalMs: e.PLATFORM_TOKEN_REMINDER_INTERVAL_MS,
    http: {
      requestTimeoutMs: e.PLATFORM_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: e.PLATFORM_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: e.PLATFORM_KEEP_ALIVE_TIMEOUT_MS,
      idleTimeoutMs: e.PLATFORM_IDLE_TIMEOUT_MS,
      maxConnections: e.PLATFORM_MAX_CONNECTIONS,
    },
    migrate,
    drainDelayMs: e.PLATFORM_DRAIN_DELAY_MS,
    drainTimeoutMs: e.PLATFORM_DRAIN_TIMEOUT_MS,
    metrics: { port: e.PLATFORM_METRICS_PORT, host: e.PLATFORM_METRICS_HOST },
    listingCacheBytes: e.PLATFORM_LISTING_CACHE_MB * 1024 * 1024,
    idempotencyQuota: {
      appStoreBytes: Math.ceil(e.PLATFORM_IDEMPOTENCY_QUOTA_MB * 1024 * 1024),
      operatorBytes: Math.ceil(e.PLATFORM_IDEMPOTENCY_OPERATOR_QUOTA_MB * 1024 * 1024),
    },
  };
}

/** PLATFORM_SECRET_PREVIOUS with PLATFORM_SECRET_PREVIOUS_UNTIL (an ISO 8601 instant): both or neither. */
function previousSecretOf(e: Pick<ApiEnv, 'PLATFORM_SECRET' | 'PLATFORM_SECRET_PREVIOUS' | 'PLATFORM_SECRET_PREVIOUS_UNTIL'>): {
  value: Config['previousSecret'];
  problems: [string, string][];
} {
  const value = e.PLATFORM_SECRET_PREVIOUS || undefined;
  const untilRaw = e.PLATFORM_SECRET_PREVIOUS_UNTIL || undefined;
  const problems: [string, string][] = [];
  if (value === undefined) {
    if (untilRaw !== undefined) problems.push(['PLATFORM_SECRET_PREVIOUS_UNTIL', 'set only with PLATFORM_SECRET_PREVIOUS']);
    return { value: undefined, problems };
  }
  if (value.length < 16) problems.push(['PLATFORM_SECRET_PREVIOUS', 'at least 16 characters (the secret PLATFORM_SECRET replaces)']);
  if (value === e.PLATFORM_SECRET) problems.push(['PLATFORM_SECRET_PREVIOUS', 'must differ from PLATFORM_SECRET']);
  const until = untilRaw !== undefined && /^\d{4}-\d{2}-\d{2}T/.test(untilRaw) ? new Date(untilRaw) : undefined;
  if (until === undefined || Number.isNaN(until.getTime())) {
    problems.push([
      'PLATFORM_SECRET_PREVIOUS_UNTIL',
      `required with PLATFORM_SECRET_PREVIOUS, an ISO 8601 instant such as 2026-12-01T00:00:00Z (got '${untilRaw ?? ''}')`,
    ]);
    return { value: undefined, problems };
  }
  return { value: { value, until }, problems };
}

/**
 * The secrets a cursor or a merchant form may be signed with: the current one, and the previous
 * one until its time is up (real time: a rotation is an operation, not service time).
 */
export function acceptedSecrets(config: Pick<Config, 'secret' | 'previousSecret'>, nowMs = Date.now()): string[] {
  const previous = config.previousSecret;
  return previous && nowMs < previous.until.getTime() ? [config.secret, previous.value] : [config.secret];
}
