import { redactUrl } from '@platform/db';

/** decisions §12.4: every variable the service reads, validated once at start. */
export interface Config {
  databaseUrl: string;
  host: string;
  port: number;
  baseDomain: string;
  operatorToken: string;
  secret: string;
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
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
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

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function bool(env: NodeJS.ProcessEnv, name: string, def: boolean, problems: string[]): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  problems.push(`${name}: must be true or false (got '${raw}')`);
  return def;
}

function positiveNumber(env: NodeJS.ProcessEnv, name: string, def: number, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    problems.push(`${name}: must be a positive number (got '${raw}')`);
    return def;
  }
  return value;
}

function integer(env: NodeJS.ProcessEnv, name: string, def: number, min: number, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw) || Number(raw) < min) {
    problems.push(`${name}: must be an integer of at least ${min} (got '${raw}')`);
    return def;
  }
  return Number(raw);
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], def: T, problems: string[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  problems.push(`${name}: must be one of ${allowed.join(', ')} (got '${raw}')`);
  return def;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];

  const databaseUrl = env.DATABASE_URL || 'file:./data/platform.db';
  if (!/^(file:.+|postgres(ql)?:\/\/.+)$/.test(databaseUrl)) {
    problems.push(`DATABASE_URL: must start with file: (SQLite) or postgresql:// (got '${redactUrl(databaseUrl)}')`);
  }

  const host = env.HOST || '127.0.0.1';
  const portRaw = env.PORT ?? '3000';
  const port = /^\d+$/.test(portRaw) ? Number(portRaw) : NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`PORT: must be an integer 0..65535 (got '${portRaw}')`);

  const baseDomain = (env.PLATFORM_BASE_DOMAIN || 'localhost').toLowerCase();
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(baseDomain)) {
    problems.push(`PLATFORM_BASE_DOMAIN: must be a domain name such as myplatform.com (got '${baseDomain}')`);
  }

  const operatorToken = env.PLATFORM_OPERATOR_TOKEN ?? '';
  if (operatorToken.length < 16) problems.push('PLATFORM_OPERATOR_TOKEN: required, at least 16 characters');

  const secret = env.PLATFORM_SECRET ?? '';
  if (secret.length < 16) problems.push('PLATFORM_SECRET: required, at least 16 characters (signs pagination cursors)');

  const clock = oneOf(env, 'PLATFORM_CLOCK', ['system', 'manual'] as const, 'system', problems);
  const webhookAllowPrivate = bool(env, 'PLATFORM_WEBHOOK_ALLOW_PRIVATE', false, problems);
  const seedDemo = bool(env, 'PLATFORM_SEED_DEMO', true, problems);
  const demoToken = env.PLATFORM_DEMO_TOKEN || undefined;
  if (demoToken !== undefined && !/^[A-Za-z0-9_-]{32,}$/.test(demoToken)) {
    problems.push('PLATFORM_DEMO_TOKEN: must be at least 32 URL-safe characters (A-Z a-z 0-9 _ -)');
  }
  const sender = oneOf(env, 'PLATFORM_SENDER', ['embedded', 'off'] as const, 'embedded', problems);
  const showOperatorToken = bool(env, 'PLATFORM_SHOW_OPERATOR_TOKEN', false, problems);
  const trustProxy = bool(env, 'PLATFORM_TRUST_PROXY', false, problems);
  const logLevel = oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info', problems);
  const sqliteDriver = oneOf(env, 'PLATFORM_SQLITE_DRIVER', ['libsql', 'better-sqlite3'] as const, 'better-sqlite3', problems);

  const rateLimit = {
    capacity: positiveNumber(env, 'PLATFORM_RATE_LIMIT_CAPACITY', 40, problems),
    leakPerSecond: positiveNumber(env, 'PLATFORM_RATE_LIMIT_LEAK_PER_SECOND', 4, problems),
  };

  // Pause between polls when idle (0: no polling, passes run by hand), values per batch, claim lifetime.
  const metafieldRecheck = {
    intervalMs: integer(env, 'PLATFORM_METAFIELD_RECHECK_INTERVAL_MS', 250, 0, problems),
    batchSize: integer(env, 'PLATFORM_METAFIELD_RECHECK_BATCH_SIZE', 200, 1, problems),
    leaseMs: integer(env, 'PLATFORM_METAFIELD_RECHECK_LEASE_MS', 30_000, 1000, problems),
  };

  const http: HttpLimits = {
    requestTimeoutMs: integer(env, 'PLATFORM_REQUEST_TIMEOUT_MS', 30_000, 100, problems),
    headersTimeoutMs: integer(env, 'PLATFORM_HEADERS_TIMEOUT_MS', 10_000, 100, problems),
    keepAliveTimeoutMs: integer(env, 'PLATFORM_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, problems),
    idleTimeoutMs: integer(env, 'PLATFORM_IDLE_TIMEOUT_MS', 60_000, 100, problems),
    maxConnections: integer(env, 'PLATFORM_MAX_CONNECTIONS', 1024, 1, problems),
  };
  // Node refuses a headers timeout longer than the request timeout.
  if (http.headersTimeoutMs > http.requestTimeoutMs) {
    problems.push(`PLATFORM_HEADERS_TIMEOUT_MS: must not exceed PLATFORM_REQUEST_TIMEOUT_MS (${http.requestTimeoutMs})`);
  }

  const tokenReminderIntervalMs = integer(env, 'PLATFORM_TOKEN_REMINDER_INTERVAL_MS', 60_000, 0, problems);

  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl !== undefined && !/^rediss?:\/\/.+/.test(redisUrl)) problems.push(`REDIS_URL: must start with redis:// or rediss://`);
  const smtpUrl = env.PLATFORM_SMTP_URL || undefined;
  if (smtpUrl !== undefined && !/^smtps?:\/\/.+/.test(smtpUrl)) problems.push(`PLATFORM_SMTP_URL: must start with smtp:// or smtps://`);

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    databaseUrl, host, port, baseDomain, operatorToken, secret, clock, webhookAllowPrivate, seedDemo, demoToken,
    sender, showOperatorToken, redisUrl, smtpUrl, logLevel, trustProxy, sqliteDriver, rateLimit, metafieldRecheck, tokenReminderIntervalMs, http,
  };
}
