import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { env, parseEnv, readSharedSettings, ZSharedEnv } from './settings';

describe('readSharedSettings: what the API and the sender read alike', () => {
  it('has the documented defaults', () => {
    const problems: string[] = [];
    expect(readSharedSettings({}, problems)).toEqual({
      databaseUrl: 'file:./data/platform.db',
      sqliteDriver: 'better-sqlite3',
      clock: 'system',
      baseDomain: 'localhost',
      webhookAllowPrivate: false,
      logLevel: 'info',
      migrate: 'auto',
    });
    expect(problems).toEqual([]);
  });

  it('names every bad variable at once, never echoing a password', () => {
    const problems: string[] = [];
    readSharedSettings(
      {
        DATABASE_URL: 'mysql://admin:hunter2@db/x',
        PLATFORM_BASE_DOMAIN: 'not a domain',
        PLATFORM_CLOCK: 'sundial',
        PLATFORM_SQLITE_DRIVER: 'mine',
        PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'yes',
        LOG_LEVEL: 'loud',
        PLATFORM_MIGRATE: 'sometimes',
      },
      problems,
    );
    expect(problems.map((p) => p.split(':')[0])).toEqual([
      'DATABASE_URL',
      'PLATFORM_BASE_DOMAIN',
      'PLATFORM_SQLITE_DRIVER',
      'PLATFORM_CLOCK',
      'PLATFORM_WEBHOOK_ALLOW_PRIVATE',
      'LOG_LEVEL',
      'PLATFORM_MIGRATE',
    ]);
    expect(problems.join('\n')).not.toContain('hunter2');
  });

  it('lower-cases the base domain and takes 1/0 for true/false', () => {
    const problems: string[] = [];
    const s = readSharedSettings({ PLATFORM_BASE_DOMAIN: 'MyPlatform.COM', PLATFORM_WEBHOOK_ALLOW_PRIVATE: '1' }, problems);
    expect(s.baseDomain).toBe('myplatform.com');
    expect(s.webhookAllowPrivate).toBe(true);
    expect(problems).toEqual([]);
  });
});

describe('env: the field builders of every program', () => {
  /** The values of one parse (when it passed) and its problems. */
  function read<S extends z.ZodRawShape>(shape: S, source: Record<string, string>) {
    const result = parseEnv(z.object(shape), source);
    return result.ok ? { values: result.value, problems: [] } : { values: undefined, problems: result.problems };
  }

  it('takes integers within bounds only, and states the bounds it wants', () => {
    const source = { A: '5', B: '-1', C: '1.5', D: '2000', E: '' };
    const { problems } = read(
      { A: env.integer(1, 0), B: env.integer(7, 0), C: env.integer(7, 0), D: env.integer(7, 1, 1000), E: env.integer(7, 1, 1000) },
      source,
    );
    expect(problems).toEqual([
      "B: must be an integer of at least 0 (got '-1')",
      "C: must be an integer of at least 0 (got '1.5')",
      "D: must be an integer from 1 to 1000 (got '2000')",
    ]);
    expect(read({ A: env.integer(1, 0), E: env.integer(7, 1, 1000) }, source).values).toEqual({ A: 5, E: 7 });
  });

  it('takes positive finite numbers only', () => {
    const source = { A: '0.5', B: '0', C: 'Infinity' };
    expect(read({ A: env.positiveNumber(4), B: env.positiveNumber(4), C: env.positiveNumber(4) }, source).problems).toHaveLength(2);
    expect(read({ A: env.positiveNumber(4) }, source).values).toEqual({ A: 0.5 });
  });

  it('a program extending the shared schema names bad variables of both parts in one parse', () => {
    const program = ZSharedEnv.extend({ PLATFORM_OWN_LIMIT: env.integer(3, 1) });
    const result = parseEnv(program, { PLATFORM_CLOCK: 'sundial', PLATFORM_OWN_LIMIT: '0', UNRELATED: 'x' });
    expect(result).toEqual({
      ok: false,
      problems: [
        "PLATFORM_CLOCK: must be one of system, manual (got 'sundial')",
        "PLATFORM_OWN_LIMIT: must be an integer of at least 1 (got '0')",
      ],
    });
  });
});
