import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSender } from './helpers';

// Issue 15, item 1: the sender under PLATFORM_MIGRATE, and a start that cannot go on says why in one line.
const dir = mkdtempSync(join(tmpdir(), 'platform-sender-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function oneLineFailure(env: Record<string, string>): Promise<string> {
  const sender = spawnSender(env);
  const { code } = await sender.exited;
  expect(code).toBe(1);
  const lines = sender.output().trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('the sender start (issue 15)', () => {
  it('an unreachable PostgreSQL is one line, without its password', async () => {
    expect(await oneLineFailure({ DATABASE_URL: 'postgresql://platform:hunter2@127.0.0.1:1/platform' })).toBe(
      'webhook sender: cannot start: DATABASE_URL: cannot connect to PostgreSQL at postgresql://platform:***@127.0.0.1:1/platform: connection refused (is the server running, and on that port?)',
    );
  });

  it('decisions §12.4: a metrics port in use is one line naming the variable, not a stack trace', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const taken = (busy.address() as AddressInfo).port;
    try {
      expect(await oneLineFailure({ DATABASE_URL: `file:${join(dir, 'metrics.db')}`, PLATFORM_SENDER_METRICS_PORT: String(taken) })).toBe(
        `webhook sender: cannot start: PLATFORM_SENDER_METRICS_PORT=${taken}: the port is already in use on 127.0.0.1`,
      );
    } finally {
      busy.close();
    }
  });

  it('PLATFORM_MIGRATE=check refuses a schema behind the code and names the command', async () => {
    const line = await oneLineFailure({ DATABASE_URL: `file:${join(dir, 'check.db')}`, PLATFORM_MIGRATE: 'check' });
    expect(line).toMatch(
      /^webhook sender: cannot start: The database schema is behind this version \(PLATFORM_MIGRATE=check\): \d+ migration\(s\) missing: 20261122071706_init, /,
    );
    expect(line).toContain('Run `pnpm migrate`');
  });

  it('PLATFORM_MIGRATE=auto (the default) migrates an empty database and runs', async () => {
    const sender = spawnSender({ DATABASE_URL: `file:${join(dir, 'auto.db')}`, LOG_LEVEL: 'info' });
    try {
      await expect.poll(() => sender.output(), { timeout: 30_000 }).toContain('webhook sender started');
    } finally {
      sender.child.kill('SIGTERM');
    }
    expect((await sender.exited).code).toBe(0);
  });
});
