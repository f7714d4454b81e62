import { createDb } from '@platform/db';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startBuiltApi } from './api-process';
import { emptyDatabase } from './harness';

// Issue 15, item 1: migrations as a step, and a start that fails says why in one line. Each test
// runs the built program as production runs it.
const migrations = readdirSync(join(__dirname, '..', '..', '..', 'packages', 'db', 'prisma', 'sqlite', 'migrations'), {
  withFileTypes: true,
})
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();
const dir = mkdtempSync(join(tmpdir(), 'platform-start-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Resolves once something accepts connections on the loopback port. */
async function listening(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing listens on ${port}`);
}

/** A start that must fail: exit 1 and exactly one line on stderr, no stack trace. */
async function expectOneLineFailure(env: Record<string, string>): Promise<string> {
  const api = startBuiltApi(env);
  const { code } = await api.exited;
  const stderr = api.stderr();
  expect(code).toBe(1);
  expect(api.stdout()).toBe('');
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
  return lines[0]!;
}

describe('a start that cannot go on says why in one line (issue 15)', () => {
  it('decisions §12.4: a HOST or PORT it cannot listen on names the variable (no stack trace)', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const taken = (busy.address() as AddressInfo).port;
    try {
      // One database for the four; none of them may create or migrate it: a start that cannot
      // listen ends before it touches the database or builds the API.
      const url = `file:${join(dir, 'listen', 'platform.db')}`;
      for (const [env, expected] of [
        [{ HOST: 'no-such-host.invalid', PORT: '0' }, 'platform-api: cannot start: HOST=no-such-host.invalid: the name does not resolve'],
        [{ HOST: '192.0.2.1', PORT: '0' }, 'platform-api: cannot start: HOST=192.0.2.1: not an address of this machine'],
        [{ PORT: String(taken) }, `platform-api: cannot start: PORT=${taken}: the port is already in use on 127.0.0.1`],
        [
          { PORT: '0', PLATFORM_METRICS_PORT: String(taken) },
          `platform-api: cannot start: PLATFORM_METRICS_PORT=${taken}: the port is already in use on 127.0.0.1`,
        ],
      ] as const) {
        // At the default log level (info), as `./dev.sh start` runs it: no second line of the same failure on stdout.
        const api = startBuiltApi({ DATABASE_URL: url, LOG_LEVEL: 'info', ...env });
        const { code } = await api.exited;
        const stderr = api.stderr();
        expect(code, expected).toBe(1);
        expect(stderr.trim().split('\n'), expected).toEqual([expected]);
        expect(api.stdout(), expected).not.toMatch(/EADDRINUSE|EADDRNOTAVAIL|ENOTFOUND|"level":"error"/);
        expect(api.stdout() + stderr).not.toMatch(/\n\s+at /);
      }
      expect(existsSync(join(dir, 'listen', 'platform.db'))).toBe(false);
    } finally {
      busy.close();
    }
  });

  it('an unreachable PostgreSQL, named without its password', async () => {
    const line = await expectOneLineFailure({ DATABASE_URL: 'postgresql://platform:hunter2@127.0.0.1:1/platform' });
    expect(line).toBe(
      'platform-api: cannot start: DATABASE_URL: cannot connect to PostgreSQL at postgresql://platform:***@127.0.0.1:1/platform: connection refused (is the server running, and on that port?)',
    );
  });

  it('a Redis URL whose host does not exist', async () => {
    const line = await expectOneLineFailure({
      DATABASE_URL: `file:${join(dir, 'redis', 'platform.db')}`,
      REDIS_URL: 'redis://no-such-host.invalid:6379',
    });
    expect(line).toMatch(/^platform-api: cannot start: REDIS_URL: redis:\/\/no-such-host\.invalid:6379 cannot be used: .*ENOTFOUND/);
  });

  it('a Redis that refuses the credentials of the URL', async () => {
    // A real Redis with a password, on a port of its own (never the shared one).
    const redis = spawn('redis-server', [
      '--port',
      '21990',
      '--bind',
      '127.0.0.1',
      '--requirepass',
      'the-right-one',
      '--save',
      '',
      '--appendonly',
      'no',
    ]);
    try {
      await listening(21990);
      const line = await expectOneLineFailure({
        DATABASE_URL: `file:${join(dir, 'redis-auth', 'platform.db')}`,
        REDIS_URL: 'redis://:wrong-one@127.0.0.1:21990',
      });
      expect(line).toMatch(/^platform-api: cannot start: REDIS_URL: redis:\/\/:\*\*\*@127\.0\.0\.1:21990 cannot be used: WRONGPASS/);
      expect(line).not.toContain('wrong-one');
    } finally {
      redis.kill('SIGTERM');
    }
  });

  it('PLATFORM_MIGRATE=check on a schema behind the code names the missing migrations and the command', async () => {
    const line = await expectOneLineFailure({ DATABASE_URL: `file:${join(dir, 'check', 'platform.db')}`, PLATFORM_MIGRATE: 'check' });
    expect(line).toContain('platform-api: cannot start: The database schema is behind this version (PLATFORM_MIGRATE=check)');
    for (const name of migrations) expect(line).toContain(name);
    expect(line).toContain('Run `pnpm migrate`');
  });

  it('PLATFORM_MIGRATE=check starts on a migrated schema, and applies nothing', async () => {
    const url = `file:${join(dir, 'checked', 'platform.db')}`;
    const first = startBuiltApi({ DATABASE_URL: url });
    await first.waitFor('Operator token:');
    expect((await first.stop()).code).toBe(0);
    const second = startBuiltApi({ DATABASE_URL: url, PLATFORM_MIGRATE: 'check' });
    await second.waitFor('Operator token:');
    expect((await second.stop()).code).toBe(0);
    expect(second.stdout()).toContain('Platform Admin API is up (0 migration(s) applied');
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('two APIs started at the same moment on an empty PostgreSQL (issue 15)', () => {
  it('both become ready and each migration is applied once', async () => {
    const database = await emptyDatabase();
    const runs = [startBuiltApi({ DATABASE_URL: database.url }), startBuiltApi({ DATABASE_URL: database.url })];
    try {
      await Promise.all(runs.map((r) => r.waitFor('Operator token:')));
      const results = await Promise.all(runs.map((r) => r.stop()));
      expect(results.map((r) => r.code)).toEqual([0, 0]);
      // One applied them all, the other waited for the lock and found them applied.
      const applied = runs.map((r) => /\((\d+) migration\(s\) applied/.exec(r.stdout())?.[1]).sort();
      expect(applied).toEqual(['0', String(migrations.length)]);
      const db = createDb(database.url);
      try {
        const rows = await db.query<{ migration_name: string }>('SELECT migration_name FROM _prisma_migrations ORDER BY migration_name');
        expect(rows.map((r) => r.migration_name)).toEqual(migrations);
      } finally {
        await db.close();
      }
    } finally {
      await Promise.all(runs.map((r) => r.stop('SIGKILL')));
      await database.drop();
    }
  });
});
