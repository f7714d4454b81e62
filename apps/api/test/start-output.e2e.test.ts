import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// Issue 8, finding 6: what the start prints. The built entry point runs as the start command runs it.
const main = join(__dirname, '..', 'dist', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'platform-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OPERATOR = 'operator-token-from-the-environment-0123';

function start(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        PLATFORM_SECRET: 'secret-for-the-start-test-0123',
        PLATFORM_OPERATOR_TOKEN: OPERATOR,
        PLATFORM_SEED_DEMO: 'false',
        PLATFORM_SENDER: 'off',
        LOG_LEVEL: 'silent',
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk.toString();
      // Up and printed: stop it.
      if (stdout.includes('Operator token:')) child.kill('SIGTERM');
    });
    child.stderr.on('data', (chunk) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the start output (issue 8 finding 6)', () => {
  it('does not print an operator token that came from the environment', async () => {
    const r = await start({ DATABASE_URL: `file:${join(dir, 'a', 'platform.db')}` });
    expect(r.stdout).toContain('Operator token:  from PLATFORM_OPERATOR_TOKEN (not shown)');
    expect(r.stdout + r.stderr).not.toContain(OPERATOR);
  });

  it('prints it when the start command generated it', async () => {
    const r = await start({ DATABASE_URL: `file:${join(dir, 'b', 'platform.db')}`, PLATFORM_SHOW_OPERATOR_TOKEN: 'true' });
    expect(r.stdout).toContain(`Operator token:  ${OPERATOR}`);
  });

  it('creates the data folder 0700 and the database 0600', async () => {
    await start({ DATABASE_URL: `file:${join(dir, 'c', 'platform.db')}` });
    expect(statSync(join(dir, 'c')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'c', 'platform.db')).mode & 0o777).toBe(0o600);
  });

  it('a bad DATABASE_URL is named without its password', async () => {
    const r = await start({ DATABASE_URL: 'mysql://admin:hunter2-secret@db.internal/platform' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('DATABASE_URL');
    expect(r.stderr).toContain('mysql://admin:***@db.internal/platform');
    expect(r.stdout + r.stderr).not.toContain('hunter2');
  });
});
