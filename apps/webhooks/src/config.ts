import { env, envVariable, parseEnv, ZSharedEnv, sharedSettingsOf, type LogLevel } from '@platform/db';

/** The sender's settings (docs/webhooks-sender.md lists each variable with its default). */
export interface SenderConfig {
  databaseUrl: string;
  sqliteDriver: 'libsql' | 'better-sqlite3';
  /** decisions §10: `manual` reads the shared instant of the `platform_clock` row. */
  clock: 'system' | 'manual';
  /** Where a manual clock starts when no process has read it yet (PLATFORM_CLOCK_START; unset: real time). */
  clockStart: Date | undefined;
  /** decisions §11.2: http:// and private, loopback or link-local targets only when true. */
  allowPrivate: boolean;
  /**
   * PLATFORM_WEBHOOK_PROXY: an HTTP CONNECT proxy (`http://` or `https://`, credentials in the URL
   * for Basic authentication) every delivery goes through; undefined: deliveries connect directly.
   */
  proxy: string | undefined;
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
  /** PostgreSQL: VACUUM webhook_deliveries after this many recorded deliveries (0: never; vacuum.ts). */
  vacuumEvery: number;
  /** Issue 48: delivered and failed deliveries older than this are removed with their attempts (0: kept for ever; retention.ts). */
  retentionMs: number;
  /** Deliveries one retention batch may remove. */
  retentionBatch: number;
  /** How often the counts are folded and a retention pass runs. */
  maintenanceMs: number;
  /** Issue 15: `auto` migrates at start (under the migration lock), `check` refuses a schema behind the code. */
  migrate: 'auto' | 'check';
}

export class SenderConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment for the webhook sender:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** The sender's variables beside the shared ones (docs/webhooks-sender.md). */
const ZSenderEnv = ZSharedEnv.extend({
  // An attempt (at most 5 s) must end well inside its claim, or another sender could take it
  // over while it is still in flight: at least 6 s.
  PLATFORM_SENDER_LEASE_MS: env.integer(60_000, 6000, 86_400_000),
  // Attempts in flight per process, and as many deliveries held ready for the slots, up to four
  // times as many for small bodies (hold.ts, heldCap): 256 rather than 64 took PostgreSQL from 24% to 43% of a bare
  // keep-alive loop and four subscriptions on SQLite from 47% to 59% (bench/webhooks, 2026-11-26):
  // claims, one at a time across senders, each take four times as much.
  PLATFORM_SENDER_CONCURRENCY: env.integer(256, 1, 10_000),
  PLATFORM_SENDER_PER_HOST: env.integer(4, 1, 1000),
  // Four hosts' worth: an app with many receivers gets more than one host's share, never the sender.
  PLATFORM_SENDER_PER_APP: env.integer(16, 1, 10_000),
  PLATFORM_SENDER_BATCH: env.integer(32, 1, 1000),
  PLATFORM_SENDER_POLL_MS: env.integer(1000, 1, 600_000),
  PLATFORM_SENDER_METRICS_PORT: env.integer(0, 0, 65_535),
  PLATFORM_SENDER_METRICS_HOST: env.text('127.0.0.1'),
  // PostgreSQL: a VACUUM of webhook_deliveries after this many recorded deliveries, 0 never (vacuum.ts).
  PLATFORM_SENDER_VACUUM_EVERY: env.integer(10_000, 0, 1_000_000_000),
  // Issue 48: delivered and failed deliveries (and their attempts) older than this many days are
  // removed by the senders, in batches; 0 keeps the history for ever (retention.ts).
  PLATFORM_SENDER_RETENTION_DAYS: env.integer(30, 0, 36_500),
  PLATFORM_SENDER_RETENTION_BATCH: env.integer(500, 1, 10_000),
  // How often the counts by status are folded (PostgreSQL) and a retention pass runs.
  PLATFORM_SENDER_MAINTENANCE_MS: env.integer(10_000, 100, 3_600_000),
  // The egress proxy (docs/webhooks-sender.md "Through an egress proxy"). The message never echoes
  // the value: it may hold a password.
  PLATFORM_WEBHOOK_PROXY: envVariable<string | undefined>(undefined, (raw) => {
    if (raw === undefined || raw === '') return { ok: true, value: undefined };
    return isProxyUrl(raw)
      ? { ok: true, value: raw }
      : { ok: false, message: 'must be the http:// or https:// URL of an HTTP CONNECT proxy, such as http://proxy.internal:3128' };
  }),
});

/** An http(s) URL with a host and nothing past it but a slash (a proxy is a host and a port). */
function isProxyUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.hostname !== '' &&
    url.pathname === '/' &&
    url.search === '' &&
    url.hash === ''
  );
}

export function loadSenderConfig(source: NodeJS.ProcessEnv = process.env): SenderConfig {
  const parsed = parseEnv(ZSenderEnv, source);
  if (!parsed.ok) throw new SenderConfigError(parsed.problems);
  const e = parsed.value;
  const shared = sharedSettingsOf(e);
  return {
    databaseUrl: shared.databaseUrl,
    sqliteDriver: shared.sqliteDriver,
    clock: shared.clock,
    clockStart: shared.clockStart,
    allowPrivate: shared.webhookAllowPrivate,
    proxy: e.PLATFORM_WEBHOOK_PROXY,
    baseDomain: shared.baseDomain,
    leaseMs: e.PLATFORM_SENDER_LEASE_MS,
    maxInFlight: e.PLATFORM_SENDER_CONCURRENCY,
    perHost: e.PLATFORM_SENDER_PER_HOST,
    perApp: e.PLATFORM_SENDER_PER_APP,
    batchSize: e.PLATFORM_SENDER_BATCH,
    pollMs: e.PLATFORM_SENDER_POLL_MS,
    connectTimeoutMs: 1000,
    timeoutMs: 5000,
    metricsPort: e.PLATFORM_SENDER_METRICS_PORT,
    metricsHost: e.PLATFORM_SENDER_METRICS_HOST,
    vacuumEvery: e.PLATFORM_SENDER_VACUUM_EVERY,
    retentionMs: e.PLATFORM_SENDER_RETENTION_DAYS * 86_400_000,
    retentionBatch: e.PLATFORM_SENDER_RETENTION_BATCH,
    maintenanceMs: e.PLATFORM_SENDER_MAINTENANCE_MS,
    logLevel: shared.logLevel,
    migrate: shared.migrate,
  };
}
