// The SDK's main entry on every runtime app teams deploy to (issue 46): Node 20.19, 22 and 24, Bun,
// Deno, and Cloudflare's workerd at a current compatibility date (with nodejs_compat) and at an old
// one (no `process`, no `Buffer`). The package is packed as it is published, installed with npm into
// a folder outside the repository, and one flow (flow.mjs) runs on each against the real API
// (apps/api/dist/main.js on loopback, manual clock). `pnpm --filter @platform/sdk test:runtimes`
// after `pnpm build`; runtimes install once into the cache of install.mjs.
/**
 * @typedef {object} FlowConfig
 * @property {string} origin @property {string} proxyOrigin @property {string} apiVersion
 * @property {string} handle @property {string} token @property {string} burstToken @property {number} burst
 * @property {string} definitionKey @property {number} closedPort
 * @property {{ appKey: string, appSecret: string, code: string, serverNow: number }} oauth
 * @property {{ secret: string, bodyBase64: string, headers: Record<string, string> }} webhook
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { API_MAIN, REPO_ROOT, startApi, TEST_CLOCK_START } from '@platform/test-process';
import { binaryOf, installRuntimes } from './install.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const SDK_DIR = join(here, '..');
const VERSION = 'v20260901';
const OPERATOR_TOKEN = 'sdk-runtimes-operator-token-0123456789';
const HANDLE = 'runtimes';
const PRODUCTS = 5;
// The API runs with a bucket of 10 draining 5 a second (each token has its own): a burst of 24 at
// once meets 429s even on a loaded machine, and the retries clear it in about 3 s. Every other step
// of the flow sends fewer than 10 requests per token.
const BUCKET = { PLATFORM_RATE_LIMIT_CAPACITY: '10', PLATFORM_RATE_LIMIT_LEAK_PER_SECOND: '5' };
const BURST = 24;
const run = promisify(execFile);
// Commands run as from a shell: none of the npm_config_* a `pnpm run` exports (its folder's .npmrc).
const SHELL_ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

/** The runs: a runtime and how it is started. workerd runs twice, at two compatibility dates. */
const ALL_RUNS = [
  { name: 'node-20.19', runtime: 'node-20.19', kind: 'cli', args: ['cli.mjs'] },
  { name: 'node-22', runtime: 'node-22', kind: 'cli', args: ['cli.mjs'] },
  { name: 'node-24', runtime: 'node-24', kind: 'cli', args: ['cli.mjs'] },
  { name: 'bun', runtime: 'bun', kind: 'cli', args: ['--no-install', 'run', 'cli.mjs'] },
  { name: 'deno', runtime: 'deno', kind: 'cli', args: ['run', '--node-modules-dir=manual', '--no-lock', '-A', 'cli.mjs'] },
  { name: 'workerd', runtime: 'workerd', kind: 'worker', compatibilityDate: '2026-11-01', flags: ['nodejs_compat'] },
  { name: 'workerd-2021', runtime: 'workerd', kind: 'worker', compatibilityDate: '2021-11-03', flags: [] },
];
// SDK_RUNTIMES=deno,workerd-2021 runs those alone (while working on one).
const chosen = process.env.SDK_RUNTIMES?.split(',').filter(Boolean);
const RUNS = chosen ? ALL_RUNS.filter((r) => chosen.includes(r.name)) : ALL_RUNS;
if (chosen && RUNS.length !== chosen.length) throw new Error(`SDK_RUNTIMES names runs of ${ALL_RUNS.map((r) => r.name).join(', ')} only`);

let app; // the folder the tarball is installed in
let api;
let apiDir;
let proxy;
const fixtures = new Map();

async function operator(method, path, body) {
  const response = await fetch(`${api.origin}/platform/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

const privateToken = async (name) =>
  (
    await operator('POST', '/apps', {
      app: {
        name,
        kind: 'private',
        scopes: ['read_products', 'read_store_information', 'write_metafields', 'read_metafields'],
        store_handle: HANDLE,
      },
    })
  ).access_token;

/** `pnpm --filter @platform/sdk pack`, as the README says, then `npm install` of the tarball in an empty folder outside the repository. */
async function installPackedSdk() {
  for (const built of [join(SDK_DIR, 'dist/index.mjs'), API_MAIN]) {
    if (!existsSync(built)) throw new Error(`${built} is missing: run \`pnpm build\` first`);
  }
  const { version } = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8'));
  const tarball = `platform-sdk-${version}.tgz`;
  rmSync(join(SDK_DIR, tarball), { force: true });
  const packed = await run('pnpm', ['--filter', '@platform/sdk', 'pack'], { cwd: REPO_ROOT, env: SHELL_ENV });
  // Issue 46: the tarball lands beside the package, not in the folder the command ran from.
  assert.ok(
    existsSync(join(SDK_DIR, tarball)),
    `pnpm --filter @platform/sdk pack wrote no ${tarball} into packages/sdk:\n${packed.stdout}`,
  );
  assert.deepEqual(
    readdirSync(REPO_ROOT).filter((f) => f.endsWith('.tgz')),
    [],
  );
  app = mkdtempSync(join(tmpdir(), 'sdk-runtimes-'));
  copyFileSync(join(SDK_DIR, tarball), join(app, tarball));
  rmSync(join(SDK_DIR, tarball));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'runtimes-app', private: true, type: 'module' }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `./${tarball}`], { cwd: app, env: SHELL_ENV });
  for (const file of ['flow.mjs', 'cli.mjs', 'worker.mjs']) copyFileSync(join(here, file), join(app, file));
}

/**
 * The worker as a Worker is deployed: one ES module, bundled for workerd's conditions (once, for
 * both workerd runs). Bundled by the runs, not before them, so a main entry that reaches a Node
 * module fails the workerd runs (it cannot be bundled) and the others still run.
 */
let workerBundle;
function bundleWorker() {
  workerBundle ??= build({
    absWorkingDir: app,
    entryPoints: ['worker.mjs'],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser', 'import'],
    mainFields: ['module', 'main'],
    outfile: join(app, 'worker.js'),
    logLevel: 'error',
  });
  return workerBundle;
}

/** A proxy in front of the API that loses the first answer of each Idempotency-Key after the service answered it. */
async function startLossyProxy(target) {
  const seenKeys = new Set();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const key = req.headers['idempotency-key'];
      const lose = req.method === 'POST' && typeof key === 'string' && !seenKeys.has(key);
      if (typeof key === 'string') seenKeys.add(key);
      const upstream = new URL(target);
      const forwarded = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          const body = [];
          answer.on('data', (c) => body.push(c));
          answer.on('end', () => {
            if (lose) return req.socket.destroy();
            res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(body));
          });
        },
      );
      forwarded.on('error', () => res.destroy());
      forwarded.end(Buffer.concat(chunks));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => (server.closeAllConnections(), server.close()) };
}

async function closedPort() {
  const server = createTcpServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A delivery as the sender writes one (UTF-8 beyond ASCII included), signed with node:crypto, not the SDK's code. */
function webhookDelivery(secret, name) {
  const body = JSON.stringify({ inventory_item: { id: '4001', sku: `Café ☕ ${name}`, tracked: true, cost: '12.50' } });
  return {
    secret,
    bodyBase64: Buffer.from(body, 'utf8').toString('base64'),
    headers: {
      'X-Platform-Hmac-Sha256': createHmac('sha256', secret).update(body, 'utf8').digest('hex'),
      'X-Platform-Topic': 'inventory_items/update',
      'X-Platform-Webhook-Id': `wh-${name}`,
      'X-Platform-Shop-Domain': `${HANDLE}.localhost`,
      'X-Platform-Shop-Id': '1',
      'X-Platform-Merchant-Id': '1',
      'X-Platform-API-Version': VERSION,
      'X-Platform-Triggered-At': TEST_CLOCK_START,
    },
  };
}

/** Everything one run needs of its own: tokens with buckets of their own, an install code, a definition key. */
async function fixtureFor(name) {
  const oauthApp = (
    await operator('POST', '/apps', {
      app: { name: `OAuth ${name}`, kind: 'public', scopes: ['read_store_information'], redirect_urls: ['https://app.example/callback'] },
    })
  ).app;
  const { code } = await operator('POST', `/stores/${HANDLE}/apps/${oauthApp.id}/install`, { scopes: ['read_store_information'] });
  const secret = `whsec-${randomUUID()}`;
  return {
    origin: api.origin,
    proxyOrigin: proxy.origin,
    apiVersion: VERSION,
    handle: HANDLE,
    token: await privateToken(`Runtime ${name}`),
    burstToken: await privateToken(`Burst ${name}`),
    burst: BURST,
    definitionKey: `k_${name.replace(/\W/g, '_')}`,
    closedPort: await closedPort(),
    oauth: { appKey: oauthApp.app_key, appSecret: oauthApp.app_secret, code, serverNow: Date.parse(TEST_CLOCK_START) },
    webhook: webhookDelivery(secret, name),
  };
}

before(async () => {
  // At once: the installs wait on the registry, the API's start on the cores. Each keeps what it
  // started where after() finds it, and all of them end before a failure is thrown, so after()
  // stops every process whatever failed.
  const started = await Promise.allSettled([
    installRuntimes([...new Set(RUNS.map((r) => r.runtime))]),
    installPackedSdk(),
    (async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sdk-runtimes-api-'));
      apiDir = dir;
      api = await startApi({
        DATABASE_URL: `file:${join(dir, 'api.db')}`,
        PLATFORM_OPERATOR_TOKEN: OPERATOR_TOKEN,
        PLATFORM_SECRET: 'sdk-runtimes-secret-0123456789abcdef',
        PLATFORM_CLOCK: 'manual',
        PLATFORM_CLOCK_START: TEST_CLOCK_START,
        PLATFORM_METAFIELD_RECHECK_INTERVAL_MS: '0',
        PLATFORM_TOKEN_REMINDER_INTERVAL_MS: '0',
        ...BUCKET,
      });
    })(),
  ]);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  proxy = await startLossyProxy(api.origin);
  await operator('POST', '/stores', { store: { handle: HANDLE, name: 'Runtimes' } });
  await operator('POST', `/stores/${HANDLE}/products`, {
    products: Array.from({ length: PRODUCTS }, (_, i) => ({ title: `Runtime ${i}`, handle: `runtime-${i}` })),
  });
  for (const { name } of RUNS) fixtures.set(name, await fixtureFor(name));
});

after(async () => {
  proxy?.close();
  await api?.stop();
  if (apiDir) rmSync(apiDir, { recursive: true, force: true });
  if (app && !process.env.KEEP_APP) rmSync(app, { recursive: true, force: true });
});

/** Runs the flow on `r` and resolves to what it returned. */
async function flowOn(r, config) {
  const env = { PATH: process.env.PATH ?? '', HOME: app, NO_COLOR: '1', DENO_DIR: join(app, '.deno'), DENO_NO_UPDATE_CHECK: '1' };
  if (r.kind === 'cli') {
    const { stdout } = await run(binaryOf(r.runtime), r.args, {
      cwd: app,
      env: { ...env, SDK_FLOW_CONFIG: JSON.stringify(config) },
      timeout: 120_000,
    });
    return JSON.parse(stdout.trim().split('\n').pop());
  }
  return flowOnWorkerd(r, config, env);
}

/**
 * workerd serves worker.js on a listening socket this process opened on a free loopback port and
 * hands over (`--socket-fd`), so no port is guessed. Its outbound network allows loopback
 * (`local`), where the API is; the default allows public addresses only.
 */
async function flowOnWorkerd(r, config, env) {
  await bundleWorker();
  const socket = createTcpServer();
  await new Promise((resolve) => socket.listen(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  const capnp = join(app, `${r.name}.capnp`);
  writeFileSync(
    capnp,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "network", network = (allow = ["public", "local"])),
  ],
  sockets = [(name = "http", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed "worker.js")],
  compatibilityDate = "${r.compatibilityDate}",
  compatibilityFlags = [${r.flags.map((f) => `"${f}"`).join(', ')}],
  globalOutbound = "network",
);
`,
  );
  let workerd;
  try {
    // The listening socket's handle becomes the child's fd 3.
    workerd = spawn(binaryOf('workerd'), ['serve', capnp, '--socket-fd', 'http=3'], {
      cwd: app,
      env,
      stdio: ['ignore', 'pipe', 'pipe', socket._handle],
    });
  } finally {
    socket.close();
  }
  let output = '';
  workerd.stdout.on('data', (c) => (output += c));
  workerd.stderr.on('data', (c) => (output += c));
  try {
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      body: JSON.stringify(config),
      signal: AbortSignal.timeout(120_000),
    });
    const text = await response.text();
    assert.equal(response.status, 200, `workerd answered ${response.status}: ${text}\n${output}`);
    return JSON.parse(text);
  } finally {
    workerd.kill('SIGTERM');
  }
}

/** What every runtime must see. */
function expected(name, config) {
  const titles = Array.from({ length: PRODUCTS }, (_, i) => `Runtime ${i}`);
  return {
    list: { titles: titles.slice(0, 2), fieldsOfFirst: ['id', 'title'], next: { limit: 2, fields: ['title'] }, second: titles.slice(2, 4) },
    iterate: { titles, fields: ['handle', 'id', 'title'] },
    apiError: {
      isApiError: true,
      isPlatformError: true,
      name: 'PlatformApiError',
      status: 401,
      method: 'GET',
      path: `/admin/openapi/${VERSION}/merchants/shop.json`,
      traceIdIsUuid: true,
      traceIdInMessage: true,
    },
    rateLimited: { fulfilled: BURST, met429: true, retriedOnlyAfter429: true, waitedWholeSeconds: true },
    keyedPost: { key: config.definitionKey, attempts: 2, oneKeyOnEveryAttempt: true, retryReasons: ['network'], stored: 1 },
    webhook: {
      topic: 'inventory_items/update',
      webhookId: `wh-${name}`,
      payload: { inventory_item: { id: '4001', sku: `Café ☕ ${name}`, tracked: true, cost: '12.50' } },
      asTextTopic: 'inventory_items/update',
      changedByte: { isVerificationError: true, reason: 'BAD_SIGNATURE', status: 401 },
    },
    oauth: { wrongSecret: { isApiError: true, status: 401 }, scope: 'read_store_information', handle: HANDLE, shop: HANDLE },
    networkError: { isNetworkError: true, host: `127.0.0.1:${config.closedPort}`, messageNamesWhere: true },
  };
}

describe('the packed SDK on every runtime, against the real API', { concurrency: 2 }, () => {
  for (const r of RUNS) {
    it(r.name, { timeout: 180_000 }, async () => {
      const config = fixtures.get(r.name);
      const { runtime, ...seen } = await flowOn(r, config);
      assert.deepEqual(seen, expected(r.name, config));
      if (r.name === 'workerd-2021') assert.deepEqual(runtime, { process: 'undefined', Buffer: 'undefined' });
    });
  }
});
