import { describe, expect, it } from 'vitest';
import { envReader, readSharedSettings } from './settings';

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

describe('envReader', () => {
  it('takes integers within bounds only, and states the bounds it wants', () => {
    const problems: string[] = [];
    const read = envReader({ A: '5', B: '-1', C: '1.5', D: '2000', E: '' }, problems);
    expect(read.integer('A', 1, 0)).toBe(5);
    expect(read.integer('B', 7, 0)).toBe(7);
    expect(read.integer('C', 7, 0)).toBe(7);
    expect(read.integer('D', 7, 1, 1000)).toBe(7);
    expect(read.integer('E', 7, 1, 1000)).toBe(7);
    expect(problems).toEqual([
      "B: must be an integer of at least 0 (got '-1')",
      "C: must be an integer of at least 0 (got '1.5')",
      "D: must be an integer from 1 to 1000 (got '2000')",
    ]);
  });

  it('takes positive finite numbers only', () => {
    const problems: string[] = [];
    const read = envReader({ A: '0.5', B: '0', C: 'Infinity' }, problems);
    expect(read.positiveNumber('A', 4)).toBe(0.5);
    expect(read.positiveNumber('B', 4)).toBe(4);
    expect(read.positiveNumber('C', 4)).toBe(4);
    expect(problems).toHaveLength(2);
  });
});
