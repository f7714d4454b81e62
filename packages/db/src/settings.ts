import { redactUrl } from './provider';

/**
 * Reading the environment of a deployment, shared by its two programs (the API and the webhook
 * sender read the same DATABASE_URL, clock, base domain, SQLite driver and log level, and must judge
 * them alike). Every reader records what is wrong in `problems` and returns the default, so a start
 * reports every bad variable at once.
 */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const DOMAIN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

export interface EnvReader {
  bool(name: string, def: boolean): boolean;
  oneOf<T extends string>(name: string, allowed: readonly T[], def: T): T;
  /** Digits only, at least `min` (and at most `max` when given). */
  integer(name: string, def: number, min: number, max?: number): number;
  positiveNumber(name: string, def: number): number;
}

export function envReader(env: NodeJS.ProcessEnv, problems: string[]): EnvReader {
  const raw = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  return {
    bool(name, def) {
      const value = raw(name);
      if (value === undefined) return def;
      if (value === 'true' || value === '1') return true;
      if (value === 'false' || value === '0') return false;
      problems.push(`${name}: must be true or false (got '${value}')`);
      return def;
    },
    oneOf(name, allowed, def) {
      const value = raw(name);
      if (value === undefined) return def;
      if ((allowed as readonly string[]).includes(value)) return value as (typeof allowed)[number];
      problems.push(`${name}: must be one of ${allowed.join(', ')} (got '${value}')`);
      return def;
    },
    integer(name, def, min, max) {
      const value = raw(name);
      if (value === undefined) return def;
      if (!/^\d+$/.test(value) || Number(value) < min || (max !== undefined && Number(value) > max)) {
        const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
        problems.push(`${name}: must be an integer ${range} (got '${value}')`);
        return def;
      }
      return Number(value);
    },
    positiveNumber(name, def) {
      const value = raw(name);
      if (value === undefined) return def;
      const n = Number(value);
      if (!Number.isFinite(n) || n <= 0) {
        problems.push(`${name}: must be a positive number (got '${value}')`);
        return def;
      }
      return n;
    },
  };
}

/** What both programs read alike: the database, its SQLite driver, the clock, the base domain, the log level, the migrate mode. */
export interface SharedSettings {
  databaseUrl: string;
  sqliteDriver: 'libsql' | 'better-sqlite3';
  /** decisions §10: `manual` is the instant stored in the `platform_clock` row. */
  clock: 'system' | 'manual';
  /** decisions §1.2: stores are `{handle}.{baseDomain}`. */
  baseDomain: string;
  /** decisions §11.2: http:// and private, loopback or link-local webhook targets only when true. */
  webhookAllowPrivate: boolean;
  logLevel: LogLevel;
  /** Issue 15: `auto` migrates at start (under the migration lock), `check` refuses a schema behind the code. */
  migrate: 'auto' | 'check';
}

export function readSharedSettings(env: NodeJS.ProcessEnv, problems: string[]): SharedSettings {
  const read = envReader(env, problems);
  const databaseUrl = env.DATABASE_URL || 'file:./data/platform.db';
  if (!/^(file:.+|postgres(ql)?:\/\/.+)$/.test(databaseUrl)) {
    problems.push(`DATABASE_URL: must start with file: (SQLite) or postgresql:// (got '${redactUrl(databaseUrl)}')`);
  }
  const baseDomain = (env.PLATFORM_BASE_DOMAIN || 'localhost').toLowerCase();
  if (!DOMAIN.test(baseDomain)) {
    problems.push(`PLATFORM_BASE_DOMAIN: must be a domain name such as myplatform.com (got '${baseDomain}')`);
  }
  return {
    databaseUrl,
    sqliteDriver: read.oneOf('PLATFORM_SQLITE_DRIVER', ['libsql', 'better-sqlite3'] as const, 'better-sqlite3'),
    clock: read.oneOf('PLATFORM_CLOCK', ['system', 'manual'] as const, 'system'),
    baseDomain,
    webhookAllowPrivate: read.bool('PLATFORM_WEBHOOK_ALLOW_PRIVATE', false),
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    migrate: read.oneOf('PLATFORM_MIGRATE', ['auto', 'check'] as const, 'auto'),
  };
}
