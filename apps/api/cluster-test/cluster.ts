import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';

/** The operator token the replicas get, and the API version called. */
export const OPERATOR_TOKEN = 'cluster-test-operator-token-0123';
export const VERSION = 'v20260901';

// The cluster of scripts/cluster.sh (PostgreSQL, Redis, HAProxy, two API replicas, two senders) for
// the end-to-end suite of issue 15: started once per file, driven through the script's commands.
const ROOT = join(__dirname, '..', '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'cluster.sh');
const run = promisify(execFile);

export interface Answer {
  status: number;
  headers: Record<string, string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON, read field by field
  body: any;
  text: string;
  /** Milliseconds from sending to the whole answer. */
  ms: number;
}

export interface Cluster {
  dir: string;
  /** HAProxy's address, `http://127.0.0.1:<port>`. */
  lb: string;
  /** Replica N's own address (1-based), bypassing HAProxy. */
  replica(n: number): string;
  env: Record<string, string>;
  /** A command of scripts/cluster.sh on this cluster (start-api N, stop-pg, start-pg, stop-redis, start-redis). */
  ctl(...args: string[]): Promise<void>;
  /** The pid of api<N> or sender<N>, from its pid file. */
  pid(name: string): number;
  /** What a process wrote to its log so far. */
  log(name: string): string;
  /** HAProxy's view of the replicas: `api1` -> `UP` / `DOWN` / ... */
  servers(): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

export async function call(
  url: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] = 'application/json';
  }
  const started = Date.now();
  const response = await request(url, {
    method: (init.method ?? (body ? 'POST' : 'GET')) as 'GET',
    headers,
    body,
    headersTimeout: init.timeoutMs ?? 60_000,
    bodyTimeout: init.timeoutMs ?? 60_000,
    // A fresh connection per call, as independent clients: a kept-alive one would pin a replica.
    reset: true,
  });
  const text = await response.body.text();
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) flat[name] = Array.isArray(value) ? value.join(', ') : (value ?? '');
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.statusCode, headers: flat, body: parsed, text, ms: Date.now() - started };
}

/** Starts scripts/cluster.sh in a folder of its own on ports from `basePort`; resolves once it is up. */
export async function startCluster(basePort: number, env: Record<string, string> = {}): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-cluster-test-'));
  const clusterEnv = {
    ...process.env,
    CLUSTER_DIR: dir,
    CLUSTER_BASE_PORT: String(basePort),
    CLUSTER_SKIP_BUILD: '1',
    PLATFORM_OPERATOR_TOKEN: OPERATOR_TOKEN,
    PLATFORM_SEED_DEMO: 'false',
    PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'true',
    PLATFORM_SENDER_POLL_MS: '50',
    LOG_LEVEL: 'warn',
    ...env,
  };
  const child: ChildProcess = spawn('bash', [SCRIPT], { env: clusterEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes('Cluster is up')) {
        clearInterval(timer);
        resolve();
      }
    }, 100);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`scripts/cluster.sh exited ${code} before the cluster was up:\n${output}`));
    });
  });
  const settings = Object.fromEntries(
    readFileSync(join(dir, 'cluster.env'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  ) as Record<string, string>;
  const base = Number(settings.BASE_PORT);
  return {
    dir,
    lb: `http://127.0.0.1:${settings.LB_PORT}`,
    replica: (n) => `http://127.0.0.1:${base + 10 + n}`,
    env: settings,
    async ctl(...args) {
      await run('bash', [SCRIPT, ...args], { env: clusterEnv });
    },
    pid: (name) => Number(readFileSync(join(dir, `${name}.pid`), 'utf8').trim()),
    log: (name) => (existsSync(join(dir, `${name}.log`)) ? readFileSync(join(dir, `${name}.log`), 'utf8') : ''),
    async servers() {
      const csv = (await call(`http://127.0.0.1:${settings.STATS_PORT}/stats;csv`)).text;
      const status: Record<string, string> = {};
      for (const line of csv.split('\n')) {
        const [proxy, server, ...rest] = line.split(',');
        if (proxy === 'replicas' && server && server !== 'BACKEND') status[server] = rest[15] ?? '';
      }
      return status;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The operator API and a store with a private app, through `origin`. */
export function operatorAt(origin: string) {
  const op = (path: string, init: Parameters<typeof call>[1] = {}) =>
    call(`${origin}/platform/v1${path}`, { token: OPERATOR_TOKEN, ...init });
  return {
    call: op,
    async storeWithApp(handle: string, scopes = ['read_products', 'write_products', 'read_inventory']) {
      const store = await op('/stores', { body: { store: { handle, name: `Store ${handle}` } } });
      if (store.status !== 201) throw new Error(`store ${store.status} ${store.text}`);
      const app = await op('/apps', { body: { app: { name: `App of ${handle}`, kind: 'private', scopes, store_handle: handle } } });
      if (app.status !== 201) throw new Error(`app ${app.status} ${app.text}`);
      return { storeId: String(store.body.store.id), appId: String(app.body.app.id), token: String(app.body.access_token) };
    },
  };
}

/** An Admin API path on `origin`. */
export const admin = (origin: string, path: string) => `${origin}/admin/openapi/${VERSION}${path}`;

/** Waits until `check` holds, polling every 100 ms, at most `ms`. */
export async function until(check: () => Promise<boolean> | boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not within ${ms} ms: ${what}`);
}
