import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request, type Dispatcher } from 'undici';

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
  /** HAProxy's address, `http://127.0.0.1:<port>` (plain HTTP by address: no redirect). */
  lb: string;
  /** HAProxy's HTTPS origin on the base domain, `https://platform.localhost:<port>` (decisions §12.6). */
  https: string;
  /** A store host's origin over HTTPS, `https://<handle>.platform.localhost:<port>`. */
  storeHttps(handle: string): string;
  /** The file of the cluster's throwaway CA (scripts/cluster/haproxy.sh), which signed HAProxy's certificate. */
  ca: string;
  /** Replica N's own address (1-based), bypassing HAProxy. */
  replica(n: number): string;
  env: Record<string, string>;
  /** A command of scripts/cluster.sh on this cluster (start-api N, stop-pg, start-pg, stop-redis, start-redis, pause-redis, resume-redis, backup, restore, link): what it printed. */
  ctl(...args: string[]): Promise<{ stdout: string; stderr: string }>;
  /** What scripts/cluster.sh printed so far (the start's summary, its log lines). */
  output(): string;
  /** The pid of api<N> or sender<N>, from its pid file. */
  pid(name: string): number;
  /** What a process wrote to its log so far. */
  log(name: string): string;
  /** HAProxy's view of the replicas: `api1` -> `UP` / `DOWN` / ... */
  servers(): Promise<Record<string, string>>;
  /** A command of the cluster's Redis, through redis-cli: its answer as text. */
  redis(...args: string[]): Promise<string>;
  /** The statistics page's address and its `Authorization` header (decisions §12.6: it needs a password). */
  stats: { url: string; authorization: string };
  stop(): Promise<void>;
}

export async function call(
  url: string,
  init: {
    method?: string;
    token?: string;
    body?: unknown;
    headers?: Record<string, string>;
    timeoutMs?: number;
    /** Another connection pool (one bound to a local address of its own, say). */
    dispatcher?: Dispatcher;
  } = {},
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
    ...(init.dispatcher ? { dispatcher: init.dispatcher } : {}),
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

/** The environment scripts/cluster.sh gets for the folder `dir`: the suite's settings, then `env`. */
export function clusterEnvOf(dir: string, basePort: number, env: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    CLUSTER_DIR: dir,
    CLUSTER_BASE_PORT: String(basePort),
    CLUSTER_SKIP_BUILD: '1',
    PLATFORM_OPERATOR_TOKEN: OPERATOR_TOKEN,
    PLATFORM_SEED_DEMO: 'false',
    PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'true',
    PLATFORM_SENDER_POLL_MS: '50',
    LOG_LEVEL: 'warn',
    // A throwaway folder (removed when the start stops) unless a test keeps it.
    CLUSTER_KEEP: '0',
    // Taken down if this test process is killed before it stops the cluster.
    CLUSTER_PARENT_PID: String(process.pid),
    ...env,
  };
}

/**
 * Starts scripts/cluster.sh on ports from `basePort`, in a new folder of its own (or in `dir`, one
 * used before); resolves once it is up. `script`: another tree's scripts/cluster.sh starts it (the
 * upgrade rehearsal's previous release); `ctl` always runs this tree's.
 */
export async function startCluster(basePort: number, env: Record<string, string> = {}, dir?: string, script = SCRIPT): Promise<Cluster> {
  dir ??= mkdtempSync(join(tmpdir(), 'platform-cluster-test-'));
  const clusterEnv = clusterEnvOf(dir, basePort, env);
  const child: ChildProcess = spawn('bash', [script], { env: clusterEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes('Ctrl-C stops everything')) {
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
  const stats = {
    url: `http://127.0.0.1:${settings.STATS_PORT}/stats`,
    authorization: `Basic ${Buffer.from(`${settings.STATS_USER}:${settings.STATS_PASSWORD}`).toString('base64')}`,
  };
  return {
    dir,
    lb: `http://127.0.0.1:${settings.LB_PORT}`,
    https: `https://${settings.BASE_DOMAIN}:${settings.HTTPS_PORT}`,
    storeHttps: (handle) => `https://${handle}.${settings.BASE_DOMAIN}:${settings.HTTPS_PORT}`,
    ca: join(dir, 'tls', 'ca.pem'),
    replica: (n) => `http://127.0.0.1:${base + 10 + n}`,
    env: settings,
    async ctl(...args) {
      return run('bash', [SCRIPT, ...args], { env: clusterEnv });
    },
    output: () => output,
    pid: (name) => Number(readFileSync(join(dir, `${name}.pid`), 'utf8').trim()),
    log: (name) => (existsSync(join(dir, `${name}.log`)) ? readFileSync(join(dir, `${name}.log`), 'utf8') : ''),
    stats,
    async redis(...args) {
      return (await run('redis-cli', ['-p', settings.REDIS_PORT!, ...args])).stdout;
    },
    async servers() {
      const csv = (await call(`${stats.url};csv`, { headers: { authorization: stats.authorization } })).text;
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
      return {
        storeId: String(store.body.store.id),
        appId: String(app.body.app.id),
        token: String(app.body.access_token),
        secret: String(app.body.app.app_secret),
      };
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

export type Timed = Answer & { sentAt: number };

export interface Load {
  /** Every answer so far, each with when it was sent. */
  answers: Timed[];
  /** Calls that got no HTTP answer at all. */
  errors: string[];
  /** The pause between one client's calls, in ms (changed while the load runs). */
  pauseMs: number;
  stop(): Promise<void>;
}

/** `clients` clients calling `send` one call after the other, each until `stop`. */
export function startLoad(clients: number, send: (client: number, i: number) => Promise<Answer>, pauseMs = 0): Load {
  let stopped = false;
  const load: Omit<Load, 'stop'> = { answers: [], errors: [], pauseMs };
  const client = async (n: number) => {
    for (let i = 0; !stopped; i++) {
      const sentAt = Date.now();
      try {
        load.answers.push({ ...(await send(n, i)), sentAt });
      } catch (error) {
        load.errors.push((error as Error).message);
      }
      if (load.pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, load.pauseMs));
    }
  };
  const running = Array.from({ length: clients }, (_, n) => client(n));
  return Object.assign(load, {
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
  });
}

/** The `q` quantile (0..1) of `values`, nearest rank. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}
