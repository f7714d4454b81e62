import { redactUrl } from '@platform/db';
/** The sender's settings (docs/webhooks-sender.md lists each variable with its default). */
export interface SenderConfig {
  databaseUrl: string;
  sqliteDriver: 'libsql' | 'better-sqlite3';
  /** decisions §10: `manual` reads the shared instant of the `platform_clock` row. */
  clock: 'system' | 'manual';
  /** decisions §11.2: http:// and private, loopback or link-local targets only when true. */
  allowPrivate: boolean;
  /** decisions §1.2: X-Platform-Shop-Domain is `{handle}.{baseDomain}`. */
  baseDomain: string;
  /** How long a claim lasts (real time); a crashed sender's claims are taken over after it. */
  leaseMs: number;
  /** Attempts in flight in this process, in all and per receiving host (decisions §11.7). */
  maxInFlight: number;
  perHost: number;
  /** Deliveries one claim may take, and of those at most `perSubscription` of one subscription. */
  batchSize: number;
  perSubscription: number;
  /** Pause between claims when nothing is due. */
  pollMs: number;
  /** decisions §11.4: 1 s to connect, 5 s for the whole answer. */
  connectTimeoutMs: number;
  timeoutMs: number;
  /** Port of the /metrics listener (0: none). */
  metricsPort: number;
  metricsHost: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

export class SenderConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment for the webhook sender:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

function integer(env: NodeJS.ProcessEnv, name: string, def: number, min: number, max: number, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    problems.push(`${name}: must be an integer from ${min} to ${max} (got '${raw}')`);
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

function bool(env: NodeJS.ProcessEnv, name: string, def: boolean, problems: string[]): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  problems.push(`${name}: must be true or false (got '${raw}')`);
  return def;
}

export function loadSenderConfig(env: NodeJS.ProcessEnv = process.env): SenderConfig {
  const problems: string[] = [];
  const databaseUrl = env.DATABASE_URL || 'file:./data/platform.db';
  if (!/^(file:.+|postgres(ql)?:\/\/.+)$/.test(databaseUrl)) {
    problems.push(`DATABASE_URL: must start with file: (SQLite) or postgresql:// (got '${redactUrl(databaseUrl)}')`);
  }
  const baseDomain = (env.PLATFORM_BASE_DOMAIN || 'localhost').toLowerCase();
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(baseDomain)) {
    problems.push(`PLATFORM_BASE_DOMAIN: must be a domain name such as myplatform.com (got '${baseDomain}')`);
  }
  const config: SenderConfig = {
    databaseUrl,
    sqliteDriver: oneOf(env, 'PLATFORM_SQLITE_DRIVER', ['libsql', 'better-sqlite3'] as const, 'better-sqlite3', problems),
    clock: oneOf(env, 'PLATFORM_CLOCK', ['system', 'manual'] as const, 'system', problems),
    allowPrivate: bool(env, 'PLATFORM_WEBHOOK_ALLOW_PRIVATE', false, problems),
    baseDomain,
    // An attempt (at most 5 s) must end well inside its claim, or another sender could take it
    // over while it is still in flight: at least 6 s.
    leaseMs: integer(env, 'PLATFORM_SENDER_LEASE_MS', 60_000, 6000, 86_400_000, problems),
    maxInFlight: integer(env, 'PLATFORM_SENDER_CONCURRENCY', 64, 1, 10_000, problems),
    perHost: integer(env, 'PLATFORM_SENDER_PER_HOST', 4, 1, 1000, problems),
    batchSize: integer(env, 'PLATFORM_SENDER_BATCH', 32, 1, 1000, problems),
    perSubscription: integer(env, 'PLATFORM_SENDER_PER_SUBSCRIPTION', 8, 1, 1000, problems),
    pollMs: integer(env, 'PLATFORM_SENDER_POLL_MS', 100, 1, 60_000, problems),
    connectTimeoutMs: 1000,
    timeoutMs: 5000,
    metricsPort: integer(env, 'PLATFORM_SENDER_METRICS_PORT', 0, 0, 65_535, problems),
    metricsHost: env.PLATFORM_SENDER_METRICS_HOST || '127.0.0.1',
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info', problems),
  };
  if (problems.length > 0) throw new SenderConfigError(problems);
  return config;
}
