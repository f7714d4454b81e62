#!/usr/bin/env node
// `pnpm start`: build what is stale, then run the API (which migrates, seeds and serves) and, with
// PLATFORM_SENDER=embedded (the default), a webhook sender beside it (decisions §12.2).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

// The build says what it does in a line, not a wall of compiler output: turbo's summary, and a
// package's output only when it fails.
// PLATFORM_START_SKIP_BUILD=1: the programs are built already (the tests of this command).
if (!process.env.PLATFORM_START_SKIP_BUILD) {
  console.log('Building the platform (contract, domain, db, SDK, API, sender): about 2 minutes the first time, seconds after...');
  const buildStarted = Date.now();
  const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], {
    stdio: 'inherit',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
  console.log(`Built in ${Math.round((Date.now() - buildStarted) / 1000)} s.`);
}
console.log('Starting the API (migrations, and the demo store on a first start)...');

// Development secrets: generated once and kept in data/ so restarts keep the same operator token,
// cursor secret and demo token (random like every token; the database keeps only its hash). Set
// PLATFORM_OPERATOR_TOKEN / PLATFORM_SECRET / PLATFORM_DEMO_TOKEN to use your own.
const env = { ...process.env };
// The operator token is printed only when this command made it (a token given in the environment
// belongs to whoever set it, and stays out of terminals and logs).
env.PLATFORM_SHOW_OPERATOR_TOKEN = env.PLATFORM_OPERATOR_TOKEN ? 'false' : 'true';
if (!env.PLATFORM_OPERATOR_TOKEN || !env.PLATFORM_SECRET || !env.PLATFORM_DEMO_TOKEN) {
  const file = join(root, 'data', 'dev-secrets.json');
  // Secrets (and the SQLite database beside them) are for this user only, also when made earlier.
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  chmodSync(dirname(file), 0o700);
  const secrets = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const missing = !secrets.operatorToken || !secrets.secret || !secrets.demoToken;
  secrets.operatorToken ||= randomBytes(32).toString('base64url');
  secrets.secret ||= randomBytes(32).toString('base64url');
  secrets.demoToken ||= randomBytes(32).toString('base64url');
  if (missing) writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  chmodSync(file, 0o600);
  env.PLATFORM_OPERATOR_TOKEN ||= secrets.operatorToken;
  env.PLATFORM_SECRET ||= secrets.secret;
  env.PLATFORM_DEMO_TOKEN ||= secrets.demoToken;
}

const children = [];
// Set once a stop was asked (Ctrl-C, SIGTERM) or one program ended: the others are told to stop
// then, and one that ends by a stop's signal (before it could install its own handler, just
// started) stopped cleanly, whichever this process hears first: a terminal's Ctrl-C reaches every
// process of the group at once, and a child's end may be read before this process's own signal
// (seen as exit code 1 after a Ctrl-C right after the sender started). The exit code is the worst
// of the programs' own codes.
let stopping = false;
const STOP_SIGNALS = new Set(['SIGINT', 'SIGTERM']);
const run = (name, script, stdout = 'inherit') => {
  const child = spawn(process.execPath, [script], { stdio: ['inherit', stdout, 'inherit'], env });
  child.on('exit', (code, signal) => {
    const status = code ?? (signal && (stopping || STOP_SIGNALS.has(signal)) ? 0 : 1);
    stopping = true;
    for (const other of children) if (other !== child && other.exitCode === null) other.kill('SIGTERM');
    process.exitCode = Math.max(process.exitCode ?? 0, status);
  });
  children.push(child);
  return child;
};

// The sender starts once the API has migrated the database and listens: a second process holding
// the SQLite file while migrations run makes Prisma's schema engine fail (docs/webhooks-sender.md).
const api = run('api', join(root, 'apps/api/dist/main.js'), 'pipe');
const sender = join(root, 'apps/webhooks/dist/main.js');
const embedded = (env.PLATFORM_SENDER || 'embedded') === 'embedded' && existsSync(sender);
let apiOutput = '';
let senderStarted = false;
api.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  if (senderStarted) return;
  apiOutput += chunk.toString('utf8');
  if (!apiOutput.includes('Platform Admin API is up')) return;
  senderStarted = true;
  apiOutput = '';
  writeServerFile();
  if (embedded && !stopping) {
    run('webhooks', sender);
    console.log(
      'Webhook sender started beside the API (PLATFORM_SENDER=embedded; `off` leaves delivery to `pnpm --filter @platform/webhooks start` processes)',
    );
  } else if (env.PLATFORM_SENDER === 'off') {
    console.log('Webhook sender not started here (PLATFORM_SENDER=off): run `pnpm --filter @platform/webhooks start` for delivery');
  }
});

// Where the API listens, for `./dev.sh link` (scripts/sign-in-link.mjs), while it runs.
const serverFile = join(root, 'data', 'dev-server.json');
let wroteServerFile = false;
function writeServerFile() {
  let host = env.HOST || '127.0.0.1';
  if (host === '0.0.0.0') host = '127.0.0.1';
  if (host === '::') host = '::1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${env.PORT || '3000'}`;
  mkdirSync(dirname(serverFile), { recursive: true, mode: 0o700 });
  writeFileSync(serverFile, JSON.stringify({ url, pid: process.pid }, null, 2) + '\n', { mode: 0o600 });
  wroteServerFile = true;
}
// Only this start's own file: a second start that could not listen leaves the first one's.
process.on('exit', () => wroteServerFile && rmSync(serverFile, { force: true }));

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopping = true;
    for (const child of children) if (child.exitCode === null) child.kill(signal);
  });
}
