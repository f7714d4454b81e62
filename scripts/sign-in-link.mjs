#!/usr/bin/env node
// `./dev.sh link [handle]` (or `pnpm sign-in-link [handle]`): a fresh one-time sign-in link to a
// store's merchant admin (decisions §10), without restarting the API. It asks the running API, as
// the operator, with the operator token the start command keeps in data/dev-secrets.json (or
// PLATFORM_OPERATOR_TOKEN), at the address the start command wrote to data/dev-server.json (or HOST
// and PORT). A link made without a running API would be of no use: it opens a session on the API.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const handle = process.argv[2] || 'demo';

const readJson = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {});

function fail(lines) {
  console.error(lines.join('\n'));
  process.exit(1);
}

/** The API's address: HOST/PORT when given, else where the start command said it listens, else the start's defaults. */
function apiBase() {
  if (!process.env.HOST && !process.env.PORT) {
    const server = readJson(join(root, 'data', 'dev-server.json'));
    if (typeof server.url === 'string') return server.url;
  }
  let host = process.env.HOST || '127.0.0.1';
  // A server listening on every address is reached on loopback.
  if (host === '0.0.0.0') host = '127.0.0.1';
  if (host === '::') host = '::1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${process.env.PORT || '3000'}`;
}

const token = process.env.PLATFORM_OPERATOR_TOKEN || readJson(join(root, 'data', 'dev-secrets.json')).operatorToken;
if (!token) {
  fail([
    'No operator token: run ./dev.sh start once (it makes one and keeps it in data/dev-secrets.json),',
    'or set PLATFORM_OPERATOR_TOKEN to the token the API was started with.',
  ]);
}

const base = apiBase();
let response;
try {
  response = await fetch(`${base}/platform/v1/stores/${encodeURIComponent(handle)}/admin_sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
} catch {
  fail([
    `The API does not answer at ${base}.`,
    'Start it with ./dev.sh start (it prints a sign-in link too), then run ./dev.sh link again.',
    'Started elsewhere? Say where: HOST=127.0.0.1 PORT=4000 ./dev.sh link',
  ]);
}
const body = await response.json().catch(() => ({}));
if (response.status === 401) {
  fail([
    `The API at ${base} refused the operator token (it was started with another PLATFORM_OPERATOR_TOKEN).`,
    'Run with that token: PLATFORM_OPERATOR_TOKEN=... ./dev.sh link',
  ]);
}
if (!response.ok || typeof body.url !== 'string') {
  fail([`No sign-in link for the store '${handle}': ${response.status} ${body.errors ?? JSON.stringify(body)}`]);
}
console.log(body.url);
console.error(
  `One-time sign-in link to the merchant admin of '${handle}': it works once, within 10 minutes; the session it opens lasts 8 hours.`,
);
