import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

const REQUIRED = { PLATFORM_OPERATOR_TOKEN: 'operator-token-0123456789', PLATFORM_SECRET: 'secret-0123456789abcdef' };

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe(loadConfig.name, () => {
  it('applies the defaults of decisions §12', () => {
    const config = loadConfig(REQUIRED);
    expect(config).toMatchObject({
      databaseUrl: 'file:./data/platform.db',
      host: '127.0.0.1',
      port: 3000,
      baseDomain: 'localhost',
      clock: 'system',
      seedDemo: true,
      sender: 'embedded',
      rateLimit: { capacity: 40, leakPerSecond: 4 },
      metafieldRecheck: { intervalMs: 250, batchSize: 1000, leaseMs: 30_000 },
    });
  });

  it('bounds kept idempotent answers: 64 MB per (app, store) and 256 MB for the operator unless told (decisions §12.5)', () => {
    expect(loadConfig(REQUIRED).idempotencyQuota).toEqual({ appStoreBytes: 64 * 1024 * 1024, operatorBytes: 256 * 1024 * 1024 });
    const config = loadConfig({ ...REQUIRED, PLATFORM_IDEMPOTENCY_QUOTA_MB: '0.5', PLATFORM_IDEMPOTENCY_OPERATOR_QUOTA_MB: '1024' });
    expect(config.idempotencyQuota).toEqual({ appStoreBytes: 512 * 1024, operatorBytes: 1024 * 1024 * 1024 });
    expect(problemsOf({ ...REQUIRED, PLATFORM_IDEMPOTENCY_QUOTA_MB: '0', PLATFORM_IDEMPOTENCY_OPERATOR_QUOTA_MB: 'lots' })).toEqual([
      "PLATFORM_IDEMPOTENCY_QUOTA_MB: must be a positive number (got '0')",
      "PLATFORM_IDEMPOTENCY_OPERATOR_QUOTA_MB: must be a positive number (got 'lots')",
    ]);
  });

  it('reads the re-check knobs; an interval of 0 turns polling off', () => {
    const config = loadConfig({
      ...REQUIRED,
      PLATFORM_METAFIELD_RECHECK_INTERVAL_MS: '0',
      PLATFORM_METAFIELD_RECHECK_BATCH_SIZE: '3',
      PLATFORM_METAFIELD_RECHECK_LEASE_MS: '5000',
    });
    expect(config.metafieldRecheck).toEqual({ intervalMs: 0, batchSize: 3, leaseMs: 5000 });
  });

  it('names every bad variable at once (decisions §12.4)', () => {
    const problems = problemsOf({
      PORT: 'abc',
      DATABASE_URL: 'mysql://x',
      PLATFORM_CLOCK: 'weird',
      PLATFORM_METAFIELD_RECHECK_BATCH_SIZE: '0',
      PLATFORM_METAFIELD_RECHECK_LEASE_MS: '10',
      PLATFORM_RATE_LIMIT_CAPACITY: '-1',
    });
    for (const name of [
      'PORT',
      'DATABASE_URL',
      'PLATFORM_CLOCK',
      'PLATFORM_OPERATOR_TOKEN',
      'PLATFORM_SECRET',
      'PLATFORM_METAFIELD_RECHECK_BATCH_SIZE',
      'PLATFORM_METAFIELD_RECHECK_LEASE_MS',
      'PLATFORM_RATE_LIMIT_CAPACITY',
    ]) {
      expect(problems.some((p) => p.startsWith(`${name}:`))).toBe(true);
    }
  });

  it('refuses an operator token that could not be sent in an Authorization header, and an empty HOST', () => {
    for (const token of [' '.repeat(20), 'operator token with spaces', '\toperator-token-0123456789', 'operator-token-0123456789\u00e9']) {
      const problems = problemsOf({ PLATFORM_OPERATOR_TOKEN: token });
      expect(
        problems.some((p) => p.startsWith('PLATFORM_OPERATOR_TOKEN:')),
        JSON.stringify(token),
      ).toBe(true);
    }
    expect(problemsOf({ HOST: '' }).some((p) => p.startsWith('HOST:'))).toBe(true);
    expect(problemsOf({ ...REQUIRED, HOST: '0.0.0.0' })).toEqual([]);
  });

  it('never echoes a password in a message (issue 8 finding 6)', () => {
    const problems = problemsOf({ DATABASE_URL: 'mysql://admin:hunter2-secret@db:3306/x' });
    const message = problems.find((p) => p.startsWith('DATABASE_URL:'));
    expect(message).toContain('mysql://admin:***@db:3306/x');
    expect(problems.join('\n')).not.toContain('hunter2');
  });

  it('connection limits have defaults, and a headers timeout longer than the request timeout is refused', () => {
    const config = loadConfig({ PLATFORM_OPERATOR_TOKEN: 'x'.repeat(16), PLATFORM_SECRET: 'y'.repeat(16) });
    expect(config.http).toEqual({
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 5_000,
      idleTimeoutMs: 60_000,
      maxConnections: 1024,
    });
    const problems = problemsOf({
      PLATFORM_REQUEST_TIMEOUT_MS: '1000',
      PLATFORM_HEADERS_TIMEOUT_MS: '5000',
      PLATFORM_MAX_CONNECTIONS: '0',
    });
    expect(problems.some((p) => p.startsWith('PLATFORM_HEADERS_TIMEOUT_MS:'))).toBe(true);
    expect(problems.some((p) => p.startsWith('PLATFORM_MAX_CONNECTIONS:'))).toBe(true);
  });

  it('names two bad variables in one message, one line each, whichever part of the schema they belong to (decisions §12.4)', () => {
    let message = '';
    try {
      loadConfig({ ...REQUIRED, PLATFORM_CLOCK: 'sundial', PLATFORM_MAX_CONNECTIONS: 'many' });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      message = error.message;
    }
    expect(message.split('\n')).toEqual([
      'Invalid environment:',
      "  - PLATFORM_CLOCK: must be one of system, manual (got 'sundial')",
      "  - PLATFORM_MAX_CONNECTIONS: must be an integer of at least 1 (got 'many')",
    ]);
  });

  it('checks the previous secret with the other variables, and reads it when it is right (issue 15)', () => {
    const problems = problemsOf({ ...REQUIRED, PLATFORM_SECRET_PREVIOUS: REQUIRED.PLATFORM_SECRET, PORT: '' });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['PLATFORM_SECRET_PREVIOUS', 'PLATFORM_SECRET_PREVIOUS_UNTIL', 'PORT']);
    const config = loadConfig({
      ...REQUIRED,
      PLATFORM_SECRET_PREVIOUS: 'previous-0123456789',
      PLATFORM_SECRET_PREVIOUS_UNTIL: '2030-01-01T00:00:00Z',
    });
    expect(config.previousSecret).toEqual({ value: 'previous-0123456789', until: new Date('2030-01-01T00:00:00Z') });
  });
  it('PLATFORM_TRUST_PROXY: a list of addresses and CIDRs; unset trusts none; `true` every hop; bad entries are refused with what to write (decisions §12.6)', () => {
    expect(loadConfig(REQUIRED).trustProxy).toEqual([]);
    expect(loadConfig({ ...REQUIRED, PLATFORM_TRUST_PROXY: '' }).trustProxy).toEqual([]);
    expect(loadConfig({ ...REQUIRED, PLATFORM_TRUST_PROXY: 'false' }).trustProxy).toEqual([]);
    expect(loadConfig({ ...REQUIRED, PLATFORM_TRUST_PROXY: '10.0.0.5, 10.1.0.0/16,fd00::/8 ,::1' }).trustProxy).toEqual([
      '10.0.0.5',
      '10.1.0.0/16',
      'fd00::/8',
      '::1',
    ]);
    const refused = (value: string) => problemsOf({ ...REQUIRED, PLATFORM_TRUST_PROXY: value });
    expect(loadConfig({ ...REQUIRED, PLATFORM_TRUST_PROXY: 'true' }).trustProxy).toBe('every-hop');
    for (const value of ['balancer', '10.0.0.256', '10.0.0.0/33', 'fd00::/129', '10.0.0.0/x', '10.0.0.5,evil', 'loopback']) {
      const problems = refused(value);
      expect(problems, value).toHaveLength(1);
      expect(problems[0], value).toMatch(/^PLATFORM_TRUST_PROXY: not an address or CIDR: .*list the balancer's addresses or CIDRs/);
    }
    for (const value of ['0.0.0.0/0', '::/0']) expect(refused(value)[0], value).toMatch(/^PLATFORM_TRUST_PROXY: .* trusts every address/);
  });
});
