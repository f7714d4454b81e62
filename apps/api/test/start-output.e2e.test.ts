import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_BASE_URL } from '@platform/test-process';
import { afterAll, describe, expect, it } from 'vitest';
import { START_OPERATOR_TOKEN as OPERATOR, startBuiltApi } from './api-process';

// Issue 8, finding 6: what the start prints. The built entry point runs as the start command runs it.
const dir = mkdtempSync(join(tmpdir(), 'platform-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function start(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const api = startBuiltApi({ PLATFORM_SENDER: 'off', ...env });
  // Up and printed: stop it (a start that fails has exited by itself).
  await api.waitFor('Operator token:').catch(() => undefined);
  const { code } = await api.stop();
  return { code, stdout: api.stdout(), stderr: api.stderr() };
}

describe('the start output (issue 8 finding 6)', () => {
  it('does not print an operator token that came from the environment; creates the data folder 0700 and the database 0600', async () => {
    // One start for both (each start of the built API costs 2-4 s of CPU): a folder of its own.
    const r = await start({ DATABASE_URL: `file:${join(dir, 'a', 'platform.db')}` });
    expect(r.stdout).toContain('Operator token:  from PLATFORM_OPERATOR_TOKEN (not shown)');
    expect(r.stdout + r.stderr).not.toContain(OPERATOR);
    expect(statSync(join(dir, 'a')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'a', 'platform.db')).mode & 0o777).toBe(0o600);
  });

  it('prints it when the start command generated it', async () => {
    // The database of the test before (migrated there): what is printed does not depend on it.
    const r = await start({ DATABASE_URL: `file:${join(dir, 'a', 'platform.db')}`, PLATFORM_SHOW_OPERATOR_TOKEN: 'true' });
    expect(r.stdout).toContain(`Operator token:  ${OPERATOR}`);
  });

  it('a bad DATABASE_URL is named without its password', async () => {
    const r = await start({ DATABASE_URL: 'mysql://admin:hunter2-secret@db.internal/platform' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('DATABASE_URL');
    expect(r.stderr).toContain('mysql://admin:***@db.internal/platform');
    expect(r.stdout + r.stderr).not.toContain('hunter2');
  });

  it('writes an expiry reminder to the log when no SMTP server is set (decisions §5.4)', async () => {
    const api = startBuiltApi({
      DATABASE_URL: `file:${join(dir, 'd', 'platform.db')}`,
      PLATFORM_SENDER: 'off',
      PLATFORM_CLOCK: 'manual',
      PLATFORM_TOKEN_REMINDER_INTERVAL_MS: '100',
      LOG_LEVEL: undefined,
    });
    try {
      const [, origin] = await api.waitFor(API_BASE_URL);
      const op = async (path: string, body: unknown) => {
        const r = await fetch(`${origin}/platform/v1${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(r.status, path).toBeLessThan(300);
        return (await r.json()) as Record<string, unknown>;
      };
      await op('/stores', { store: { handle: 'logged', name: 'Logged', email: 'owner@logged.example' } });
      const app = await op('/apps', { app: { name: 'Reminded app', kind: 'private', scopes: ['read_products'], store_handle: 'logged' } });
      const expiresAt = Date.parse(app.expires_at as string);
      // The answer shows expires_at to the second; one second more is surely within the 30 days.
      await op('/clock', { now: new Date(expiresAt - 30 * 86_400_000 + 1000).toISOString() });
      await api.waitFor('mail to owner@logged.example');
      expect(api.output()).toContain('Reminded app');
    } finally {
      await api.stop();
    }
  });
});
