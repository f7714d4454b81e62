import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPERATOR_TOKEN } from './harness';

/** The built API as the start command runs it: its own process, so its memory and its event loop are its own. */
export interface ApiProcess {
  origin: string;
  port: number;
  pid: number;
  /** Resident memory of the server process, in bytes (Linux /proc). */
  rss(): number;
  /** Everything the process wrote to stdout so far. */
  stdout(): string;
  stop(): Promise<void>;
}

const MAIN = join(__dirname, '..', 'dist', 'main.js');

export async function startApiProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<ApiProcess> {
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      PLATFORM_OPERATOR_TOKEN: OPERATOR_TOKEN,
      PLATFORM_SECRET: 'test-secret-for-cursors-0123456789',
      PLATFORM_CLOCK: 'manual',
      PLATFORM_SEED_DEMO: 'false',
      PLATFORM_SENDER: 'off',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  const origin = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      stdout += chunk.toString('utf8');
      const m = /Base URL:\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(output);
      if (m) resolve(m[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code) => reject(new Error(`the API exited (${code}) before listening:\n${output}`)));
  });
  const pid = child.pid!;
  return {
    origin,
    port: Number(new URL(origin).port),
    pid,
    rss() {
      const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      return Number(kb) * 1024;
    },
    stdout: () => stdout,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
