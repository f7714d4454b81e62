import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The README's start command (`./dev.sh start` runs `node scripts/start.mjs`): the API and a sender
// beside it, stopped cleanly by a terminal's Ctrl-C (SIGINT to the whole process group), and a port
// in use said in one line. Built programs, as a user runs them (the build itself is skipped here).
const root = join(__dirname, '..', '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'platform-start-command-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `node scripts/start.mjs` in a process group of its own, as a terminal runs it. */
function startCommand(name: string, port: number) {
  const child = spawn(process.execPath, [join(root, 'scripts', 'start.mjs')], {
    cwd: root,
    detached: true,
    env: {
      ...process.env,
      PLATFORM_START_SKIP_BUILD: '1',
      DATABASE_URL: `file:${join(dir, name, 'platform.db')}`,
      PORT: String(port),
      PLATFORM_SEED_DEMO: 'false',
      PLATFORM_OPERATOR_TOKEN: 'start-command-operator-token-0123456789',
      PLATFORM_SECRET: 'start-command-secret-0123456789abcdef',
      PLATFORM_DEMO_TOKEN: 'start-command-demo-token-0123456789abc',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('the start command (issue 45: a quiet start and stop)', () => {
  it('Ctrl-C stops the API and the sender and ends with exit 0, no error box, also right after the sender started', async () => {
    for (const settle of [0, 1500]) {
      // One database for every start here (a restart keeps it, as `./dev.sh start` again does): the
      // first migrates and seeds it, the others find it ready.
      const start = startCommand('started', await freePort());
      await until(() => start.output().includes('Webhook sender started beside the API'), 'the sender to start');
      await new Promise((resolve) => setTimeout(resolve, settle));
      process.kill(-start.child.pid!, 'SIGINT');
      const code = await start.exited;
      expect(code, start.output()).toBe(0);
      expect(start.output()).toContain('"msg":"stopped"');
      expect(start.output()).not.toMatch(/ELIFECYCLE|Error:|\n\s+at /);
    }
  }, 180_000);

  it('a port in use: one line naming it, exit 1, no second copy of the error', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const taken = (busy.address() as AddressInfo).port;
    try {
      const start = startCommand('started', taken);
      const code = await start.exited;
      expect(code).toBe(1);
      const errors = start
        .output()
        .split('\n')
        .filter((line) => /EADDRINUSE|already in use|"level":"error"/.test(line));
      expect(errors).toEqual([`platform-api: cannot start: PORT=${taken}: the port is already in use on 127.0.0.1`]);
    } finally {
      busy.close();
    }
  }, 180_000);
});
