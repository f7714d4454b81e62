import { describe, expect, it } from 'vitest';
import { loadSenderConfig, SenderConfigError } from './config';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadSenderConfig(env);
  } catch (error) {
    if (error instanceof SenderConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe(loadSenderConfig.name, () => {
  it('has the defaults docs/webhooks-sender.md lists, and the fixed timeouts of decisions §11.4', () => {
    expect(loadSenderConfig({})).toMatchObject({
      databaseUrl: 'file:./data/platform.db',
      clock: 'system',
      allowPrivate: false,
      baseDomain: 'localhost',
      leaseMs: 60_000,
      maxInFlight: 256,
      perHost: 4,
      perApp: 16,
      batchSize: 32,
      pollMs: 1000,
      connectTimeoutMs: 1000,
      timeoutMs: 5000,
      metricsPort: 0,
      vacuumEvery: 10_000,
      retentionMs: 30 * 86_400_000,
      retentionBatch: 500,
      maintenanceMs: 10_000,
      logLevel: 'info',
      proxy: undefined,
    });
    expect(loadSenderConfig({ PLATFORM_SENDER_VACUUM_EVERY: '0' }).vacuumEvery).toBe(0);
  });

  it('keeps delivered and failed deliveries 30 days unless told otherwise, and for ever with 0 (issue 48)', () => {
    expect(loadSenderConfig({ PLATFORM_SENDER_RETENTION_DAYS: '7' }).retentionMs).toBe(7 * 86_400_000);
    expect(loadSenderConfig({ PLATFORM_SENDER_RETENTION_DAYS: '0' }).retentionMs).toBe(0);
    expect(
      problemsOf({ PLATFORM_SENDER_RETENTION_DAYS: '-1', PLATFORM_SENDER_RETENTION_BATCH: '0', PLATFORM_SENDER_MAINTENANCE_MS: 'often' }),
    ).toEqual([
      "PLATFORM_SENDER_RETENTION_DAYS: must be an integer from 0 to 36500 (got '-1')",
      "PLATFORM_SENDER_RETENTION_BATCH: must be an integer from 1 to 10000 (got '0')",
      "PLATFORM_SENDER_MAINTENANCE_MS: must be an integer from 100 to 3600000 (got 'often')",
    ]);
  });

  it('reads the settings it shares with the API the same way', () => {
    const config = loadSenderConfig({
      PLATFORM_CLOCK: 'manual',
      PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'true',
      PLATFORM_BASE_DOMAIN: 'Shops.Example',
    });
    expect(config).toMatchObject({ clock: 'manual', allowPrivate: true, baseDomain: 'shops.example' });
  });

  it('names every bad variable at once; a lease shorter than one attempt (6 s) is refused', () => {
    const problems = problemsOf({
      DATABASE_URL: 'mysql://x',
      PLATFORM_SENDER_LEASE_MS: '5000',
      PLATFORM_SENDER_PER_HOST: '0',
      PLATFORM_CLOCK: 'sundial',
      PLATFORM_SENDER_VACUUM_EVERY: '-1',
    });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'DATABASE_URL',
      'PLATFORM_CLOCK',
      'PLATFORM_SENDER_LEASE_MS',
      'PLATFORM_SENDER_PER_HOST',
      'PLATFORM_SENDER_VACUUM_EVERY',
    ]);
    expect(problems).toContain("PLATFORM_SENDER_LEASE_MS: must be an integer from 6000 to 86400000 (got '5000')");
  });

  it('takes an http:// or https:// egress proxy, and names a bad one without echoing it (it may hold a password)', () => {
    expect(loadSenderConfig({ PLATFORM_WEBHOOK_PROXY: 'http://user:pw@proxy.internal:3128' }).proxy).toBe(
      'http://user:pw@proxy.internal:3128',
    );
    expect(loadSenderConfig({ PLATFORM_WEBHOOK_PROXY: 'https://proxy.internal' }).proxy).toBe('https://proxy.internal');
    expect(loadSenderConfig({ PLATFORM_WEBHOOK_PROXY: '' }).proxy).toBeUndefined();
    for (const bad of ['proxy.internal:3128', 'socks5://proxy.internal:1080', 'http://user:secret@proxy.internal:3128/path']) {
      const problems = problemsOf({ PLATFORM_WEBHOOK_PROXY: bad });
      expect(problems).toEqual([
        'PLATFORM_WEBHOOK_PROXY: must be the http:// or https:// URL of an HTTP CONNECT proxy, such as http://proxy.internal:3128',
      ]);
      expect(problems.join('')).not.toContain('secret');
    }
  });
});
