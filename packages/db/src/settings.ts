import { z } from 'zod';
import { redactUrl } from './provider';

/**
 * The environment of a deployment as zod schemas, one per program: the variables both programs
 * read (the database, its SQLite driver, the clock, the base domain, the log level, the migrate
 * mode) are `ZSharedEnv`, which the API and the webhook sender extend with their own, so both
 * judge them alike. A bad variable is an issue on its own name and its field takes its default, so
 * one parse names every bad variable at once (decisions §12.4) and the checks across variables
 * still run.
 */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const DOMAIN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

type Read<T> = { ok: true; value: T } | { ok: false; message: string };
const accept = <T>(value: T): Read<T> => ({ ok: true, value });
const refuse = (message: string): Read<never> => ({ ok: false, message });

/**
 * One variable: `read` sees its text exactly as set (undefined when unset); a refusal becomes an
 * issue on the variable's name and the field takes `fallback`.
 */
export function envVariable<T>(fallback: T, read: (raw: string | undefined) => Read<T>) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): T => {
      const result = read(raw);
      if (result.ok) return result.value;
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: result.message });
      return fallback;
    });
}

/** An empty variable counts as unset (`X= node ...`). */
const given = (raw: string | undefined): string | undefined => (raw === '' ? undefined : raw);

/** The field builders every program's schema is written with; their messages say what is wanted. */
export const env = {
  text(def: string) {
    return envVariable(def, (raw) => accept(given(raw) ?? def));
  },
  bool(def: boolean) {
    return envVariable(def, (raw) => {
      const value = given(raw);
      if (value === undefined) return accept(def);
      if (value === 'true' || value === '1') return accept(true);
      if (value === 'false' || value === '0') return accept(false);
      return refuse(`must be true or false (got '${value}')`);
    });
  },
  oneOf<const T extends string>(allowed: readonly T[], def: T) {
    return envVariable<T>(def, (raw) => {
      const value = given(raw);
      if (value === undefined) return accept(def);
      if ((allowed as readonly string[]).includes(value)) return accept(value as T);
      return refuse(`must be one of ${allowed.join(', ')} (got '${value}')`);
    });
  },
  /** Digits only, at least `min` (and at most `max` when given). */
  integer(def: number, min: number, max?: number) {
    return envVariable(def, (raw) => {
      const value = given(raw);
      if (value === undefined) return accept(def);
      if (/^\d+$/.test(value) && Number(value) >= min && (max === undefined || Number(value) <= max)) return accept(Number(value));
      const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
      return refuse(`must be an integer ${range} (got '${value}')`);
    });
  },
  positiveNumber(def: number) {
    return envVariable(def, (raw) => {
      const value = given(raw);
      if (value === undefined) return accept(def);
      const n = Number(value);
      return Number.isFinite(n) && n > 0 ? accept(n) : refuse(`must be a positive number (got '${value}')`);
    });
  },
  /** Unset, or text matching `pattern` (the message never echoes the value: it may hold a password). */
  optionalMatching(pattern: RegExp, message: string) {
    return envVariable<string | undefined>(undefined, (raw) => {
      const value = given(raw);
      return value === undefined || pattern.test(value) ? accept(value) : refuse(message);
    });
  },
};

/** What both programs read alike. The key order is the order problems are reported in. */
export const ZSharedEnv = z.object({
  DATABASE_URL: envVariable('file:./data/platform.db', (raw) => {
    const url = given(raw) ?? 'file:./data/platform.db';
    if (/^(file:.+|postgres(ql)?:\/\/.+)$/.test(url)) return accept(url);
    return refuse(`must start with file: (SQLite) or postgresql:// (got '${redactUrl(url)}')`);
  }),
  PLATFORM_BASE_DOMAIN: envVariable('localhost', (raw) => {
    const domain = (given(raw) ?? 'localhost').toLowerCase();
    return DOMAIN.test(domain) ? accept(domain) : refuse(`must be a domain name such as myplatform.com (got '${domain}')`);
  }),
  PLATFORM_SQLITE_DRIVER: env.oneOf(['libsql', 'better-sqlite3'], 'better-sqlite3'),
  PLATFORM_CLOCK: env.oneOf(['system', 'manual'], 'system'),
  // Where a manual clock starts when no process has read it yet (tests pin it; unset: real time).
  PLATFORM_CLOCK_START: envVariable<Date | undefined>(undefined, (raw) => {
    const value = given(raw);
    if (value === undefined) return accept(undefined);
    const at = new Date(value);
    return INSTANT.test(value) && Number.isFinite(at.getTime())
      ? accept(at)
      : refuse(`must be an ISO 8601 time with an offset or Z, such as 2026-11-22T12:00:00Z (got '${value}')`);
  }),
  PLATFORM_WEBHOOK_ALLOW_PRIVATE: env.bool(false),
  LOG_LEVEL: env.oneOf(LOG_LEVELS, 'info'),
  PLATFORM_MIGRATE: env.oneOf(['auto', 'check'], 'auto'),
});

/**
 * Parses `source` with a program's schema: the variables, or one line per problem
 * (`NAME: what is wrong`), every problem at once.
 */
export function parseEnv<S extends z.ZodTypeAny>(
  schema: S,
  source: NodeJS.ProcessEnv,
): { ok: true; value: z.output<S> } | { ok: false; problems: string[] } {
  const result = schema.safeParse(source);
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    problems: result.error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message)),
  };
}

/** What both programs read alike: the database, its SQLite driver, the clock, the base domain, the log level, the migrate mode. */
export interface SharedSettings {
  databaseUrl: string;
  sqliteDriver: 'libsql' | 'better-sqlite3';
  /** decisions §10: `manual` is the instant stored in the `platform_clock` row. */
  clock: 'system' | 'manual';
  /** Where the manual clock starts when the `platform_clock` row does not exist yet (unset: real time). */
  clockStart: Date | undefined;
  /** decisions §1.2: stores are `{handle}.{baseDomain}`. */
  baseDomain: string;
  /** decisions §11.2: http:// and private, loopback or link-local webhook targets only when true. */
  webhookAllowPrivate: boolean;
  logLevel: LogLevel;
  /** Issue 15: `auto` migrates at start (under the migration lock), `check` refuses a schema behind the code. */
  migrate: 'auto' | 'check';
}

/** The shared variables of a parse (by a schema that extends `ZSharedEnv`) under their settings' names. */
export function sharedSettingsOf(e: z.output<typeof ZSharedEnv>): SharedSettings {
  return {
    databaseUrl: e.DATABASE_URL,
    sqliteDriver: e.PLATFORM_SQLITE_DRIVER,
    clock: e.PLATFORM_CLOCK,
    clockStart: e.PLATFORM_CLOCK_START,
    baseDomain: e.PLATFORM_BASE_DOMAIN,
    webhookAllowPrivate: e.PLATFORM_WEBHOOK_ALLOW_PRIVATE,
    logLevel: e.LOG_LEVEL,
    migrate: e.PLATFORM_MIGRATE,
  };
}

/**
 * The shared settings alone (the migrate command), their problems added to `problems`; with
 * problems, the value is the defaults (the caller stops).
 */
export function readSharedSettings(source: NodeJS.ProcessEnv, problems: string[]): SharedSettings {
  const result = parseEnv(ZSharedEnv, source);
  if (result.ok) return sharedSettingsOf(result.value);
  problems.push(...result.problems);
  return sharedSettingsOf(ZSharedEnv.parse({}));
}
