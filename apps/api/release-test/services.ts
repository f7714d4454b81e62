import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';

// What the release tests (scripts/image.sh test, scripts/release.sh compat) run beside the programs:
// a throwaway PostgreSQL and Redis from Debian's packages on loopback ports of the kernel's choice,
// a webhook receiver, and the programs themselves as processes (or `podman run`s) with their output kept.

/** A loopback port free now (the kernel's choice). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const root = process.getuid?.() === 0;
/** PostgreSQL refuses to run as root: as root its commands run as `postgres`. */
const asPostgres = (command: string, args: string[]) =>
  root
    ? execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'pipe' })
    : execFileSync(command, args, { stdio: 'pipe' });

export interface Postgres {
  /** `postgresql://postgres@127.0.0.1:<port>/platform` */
  url: string;
  stop(): void;
}

/** A PostgreSQL server of its own in `dir`, with an empty database `platform`. */
export async function startPostgres(dir: string): Promise<Postgres> {
  const bins = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(a) - Number(b));
  if (bins.length === 0) throw new Error('PostgreSQL is not installed (Debian: apt-get install postgresql)');
  const bin = join('/usr/lib/postgresql', bins.at(-1)!, 'bin');
  const data = join(dir, 'pg');
  mkdirSync(data, { recursive: true });
  chmodSync(dir, 0o755);
  if (root) execFileSync('chown', ['postgres:postgres', data]);
  const port = await freePort();
  asPostgres(join(bin, 'initdb'), ['-D', join(data, 'data'), '-A', 'trust', '-U', 'postgres']);
  asPostgres(join(bin, 'pg_ctl'), [
    ...['-D', join(data, 'data'), '-l', join(data, 'log'), '-w'],
    ...['-o', `-p ${port} -k ${data} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`, 'start'],
  ]);
  const client = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres` });
  await client.connect();
  await client.query('CREATE DATABASE platform');
  await client.end();
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/platform`,
    stop: () => void asPostgres(join(bin, 'pg_ctl'), ['-D', join(data, 'data'), '-m', 'immediate', 'stop']),
  };
}

export interface Program {
  /** Everything it wrote so far, stdout and stderr together. */
  output(): string;
  /** Its exit code (or the signal's name), once it has exited. */
  exited: Promise<number | string>;
  /** Sends `signal` (default SIGTERM) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/** A program started with `env` added to this process's PATH only (nothing else leaks in). */
export function startProgram(
  command: string,
  args: string[],
  env: Record<string, string>,
  onStop?: (signal: NodeJS.Signals) => void,
): Program {
  const child: ChildProcess = spawn(command, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return {
    output: () => output,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) {
        if (onStop) onStop(signal);
        else child.kill(signal);
      }
      return exited;
    },
  };
}

export function startRedis(port: number): Program {
  return startProgram('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {});
}

export interface Webhook {
  headers: Record<string, string>;
  body: Buffer;
}

/** A webhook receiver on a loopback port: every request kept, answered 200. */
export async function startReceiver(): Promise<{ address: string; received: Webhook[]; close(): Promise<void> }> {
  const received: Webhook[] = [];
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : (value ?? '');
      received.push({ headers, body: Buffer.concat(chunks) });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * decisions §11.3, as a receiver checks it: X-Platform-Hmac-Sha256 is the HMAC-SHA256 (hex) of the
 * exact body with the app's secret. Computed here with node:crypto, not the platform's own code.
 */
export function signedBy(webhook: Webhook, secret: string): boolean {
  const expected = createHmac('sha256', secret).update(webhook.body).digest();
  const given = Buffer.from(webhook.headers['x-platform-hmac-sha256'] ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// podman with the flags that work on this machine (scripts/image/lib.sh): runc, lower limits, the host's network.
const PODMAN = ['--runtime', '/usr/sbin/runc'];
const CONTAINER = ['--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096', '--network', 'host'];

export function podman(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('podman', [...PODMAN, ...args], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`podman ${args.join(' ')}: ${error.message}\n${stderr}`)) : resolve({ stdout, stderr }),
    );
  });
}

const names: string[] = [];

/**
 * `podman run --rm` of `image` with `command` (deploy/entry.sh's), in the foreground: the program's
 * exit is the container's; `stop` sends the signal with `podman kill`.
 */
export function startContainer(image: string, name: string, command: string, env: Record<string, string>): Program {
  const full = `platform-release-test-${process.pid}-${name}`;
  names.push(full);
  const vars = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  return startProgram('podman', [...PODMAN, 'run', '--rm', '--name', full, ...CONTAINER, ...vars, image, command], {}, (signal) => {
    void podman('kill', '--signal', signal.replace(/^SIG/, ''), full).catch(() => undefined);
  });
}

/** The full name of a container `startContainer` started. */
export const containerName = (name: string) => `platform-release-test-${process.pid}-${name}`;

/** Removes every container `startContainer` started that is still there. */
export async function removeContainers(): Promise<void> {
  for (const name of names) await podman('rm', '--force', '--time', '0', name).catch(() => undefined);
}
