import { envReader, readSharedSettings, type LogLevel } from '@platform/db';
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
  /** Attempts in flight in this process. */
  maxInFlight: number;
  /**
   * decisions §11.7: attempts in flight per receiving host name (whatever the port) and per app,
   * counted across ALL senders together.
   */
  perHost: number;
  perApp: number;
  /** Deliveries one claim may take. */
  batchSize: number;
  /** The safety net: a claim this often when no wake came (a lost NOTIFY or file event). */
  pollMs: number;
  /** decisions §11.4: 1 s to connect, 5 s for the whole answer. */
  connectTimeoutMs: number;
  timeoutMs: number;
  /** Port of the /metrics listener (0: none). */
  metricsPort: number;
  metricsHost: string;
  logLevel: LogLevel;
  /** Issue 15: `auto` migrates at start (under the migration lock), `check` refuses a schema behind the code. */
  migrate: 'auto' | 'check';
}

export class SenderConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment for the webhook sender:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export function loadSenderConfig(env: NodeJS.ProcessEnv = process.env): SenderConfig {
  const problems: string[] = [];
  const read = envReader(env, problems);
  const shared = readSharedSettings(env, problems);
  const config: SenderConfig = {
    databaseUrl: shared.databaseUrl,
    sqliteDriver: shared.sqliteDriver,
    clock: shared.clock,
    allowPrivate: shared.webhookAllowPrivate,
    baseDomain: shared.baseDomain,
    // An attempt (at most 5 s) must end well inside its claim, or another sender could take it
    // over while it is still in flight: at least 6 s.
    leaseMs: read.integer('PLATFORM_SENDER_LEASE_MS', 60_000, 6000, 86_400_000),
    maxInFlight: read.integer('PLATFORM_SENDER_CONCURRENCY', 64, 1, 10_000),
    perHost: read.integer('PLATFORM_SENDER_PER_HOST', 4, 1, 1000),
    // Four hosts' worth: an app with many receivers gets more than one host's share, never the sender.
    perApp: read.integer('PLATFORM_SENDER_PER_APP', 16, 1, 10_000),
    batchSize: read.integer('PLATFORM_SENDER_BATCH', 32, 1, 1000),
    pollMs: read.integer('PLATFORM_SENDER_POLL_MS', 1000, 1, 600_000),
    connectTimeoutMs: 1000,
    timeoutMs: 5000,
    metricsPort: read.integer('PLATFORM_SENDER_METRICS_PORT', 0, 0, 65_535),
    metricsHost: env.PLATFORM_SENDER_METRICS_HOST || '127.0.0.1',
    logLevel: shared.logLevel,
    migrate: shared.migrate,
  };
  if (problems.length > 0) throw new SenderConfigError(problems);
  return config;
}
