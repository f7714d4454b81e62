/*
 * The package as an app team gets it: `pnpm pack`, `npm install` of the tarball in an empty folder
 * outside the repository (only the npm registry is reached, for its dependency and peers), beside the
 * app's own zod at the lowest version the peer range allows, then an ESM script, a CommonJS script
 * and a `tsc --strict` check there, the scripts against the real API.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, SDK_DIR, sharedLiveServer, strictTypeErrors, TYPE_CHECK_TIMEOUT_MS, VERSION, type LiveServer } from './live-server';

let app: string;
let server: LiveServer;
let tarball: string;
const APP_ZOD = '3.24.0';

const APP_ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
const run = (cmd: string, args: string[], cwd = app) =>
  execFileSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: APP_ENV,
  });

beforeAll(async () => {
  app = mkdtempSync(join(tmpdir(), 'sdk-app-'));
  expect(app.startsWith(REPO_ROOT)).toBe(false);
  run('pnpm', ['pack', '--pack-destination', app], SDK_DIR);
  tarball = readdirSync(app).find((f) => f.endsWith('.tgz'))!;
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'sdk-app', private: true, version: '1.0.0' }));
  // The app's own zod, the lowest the SDK's peer range allows: the SDK must use it, not bring another.
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `./${tarball}`, `zod@${APP_ZOD}`, '@types/node@20']);
  server = await sharedLiveServer();
  await server.createStore('pack-app');
  const { token } = await server.createPrivateApp('pack-app');
  await server.createProducts('pack-app', 5, (i) => ({ title: `Packed ${i}` }));
  writeFileSync(join(app, 'config.json'), JSON.stringify({ baseUrl: server.origin, accessToken: token, apiVersion: VERSION }));
}, 300_000);
afterAll(() => {
  if (app && !process.env.KEEP_APP) rmSync(app, { recursive: true, force: true });
});

const SCRIPT = (load: string) => `${load}
const config = JSON.parse(readFileSync('config.json', 'utf8'));
async function main() {
  const sent = [];
  const client = createClient({ ...config, fetch: (url, init) => (sent.push(init.headers), fetch(url, init)) });
  const page = await client.products.list({ limit: 2, fields: ['title'] });
  let count = 0;
  for await (const product of client.admin.listProducts.iterate({ query: { limit: 2 } })) count += product.id ? 1 : 0;
  const shop = await client.shop.get();
  const { definition } = await client.admin.createMetafieldDefinition({
    body: { definition: { owner_resource: 'products', namespace: 'packed', key: 'k' + Date.now() % 100000 + String(Math.random()).slice(2, 6), name: 'N', type: 'boolean' } },
  });
  let failure;
  try {
    await createClient({ ...config, accessToken: 'not-a-token' }).shop.get();
  } catch (error) {
    failure = { api: error instanceof PlatformApiError, status: error.status, traceId: typeof error.traceId, path: error.path };
  }
  const missingPeer = async (store) => {
    try {
      await store.get('demo');
    } catch (error) {
      return error.message;
    }
  };
  const sqlite = await missingPeer(sqliteTokenStore({ filename: 'tokens.db' }));
  const redis = await missingPeer(redisTokenStore({ url: 'redis://127.0.0.1:1' }));
  const pg = await missingPeer(pgTokenStore({ connectionString: 'postgresql://127.0.0.1:1/x' }));
  console.log(JSON.stringify({
    titles: page.products.map((p) => p.title),
    nextLimit: page.next && page.next.limit,
    count,
    handle: shop.handle,
    definitionType: definition.type,
    failure,
    sqlite,
    redis,
    pg,
    sameErrorClass: WebhookError === SubpathWebhookError,
    userAgents: [...new Set(sent.map((h) => h['User-Agent']))],
    keyedPosts: sent.filter((h) => h['Idempotency-Key']).length,
  }));
}
main().catch((error) => { console.error(error); process.exit(1); });
`;

const ESM = SCRIPT(`import { readFileSync } from 'node:fs';
import { createClient, PlatformApiError, WebhookVerificationError as WebhookError } from '@platform/sdk';
import { WebhookVerificationError as SubpathWebhookError } from '@platform/sdk/express';
import { sqliteTokenStore } from '@platform/sdk/sqlite';
import { redisTokenStore } from '@platform/sdk/token-store-redis';
import { pgTokenStore } from '@platform/sdk/token-store-pg';`);

const CJS = SCRIPT(`const { readFileSync } = require('node:fs');
const { createClient, PlatformApiError, WebhookVerificationError: WebhookError } = require('@platform/sdk');
const { WebhookVerificationError: SubpathWebhookError } = require('@platform/sdk/express');
const { sqliteTokenStore } = require('@platform/sdk/sqlite');
const { redisTokenStore } = require('@platform/sdk/token-store-redis');
const { pgTokenStore } = require('@platform/sdk/token-store-pg');`);

const EXPECTED = {
  titles: ['Packed 0', 'Packed 1'],
  nextLimit: 2,
  count: 5,
  handle: 'pack-app',
  definitionType: 'boolean',
  failure: { api: true, status: 401, traceId: 'string', path: `/admin/openapi/${VERSION}/merchants/shop.json` },
  sqlite: '@platform/sdk/sqlite needs the better-sqlite3 package: npm install better-sqlite3',
  redis: '@platform/sdk/token-store-redis needs the redis package (or pass your own client): npm install redis',
  pg: '@platform/sdk/token-store-pg needs the pg package (or pass your own pool): npm install pg',
  sameErrorClass: true,
  // The version built into dist is the packed package.json's (read in the test below).
  userAgents: ['platform-sdk/<version> node/<node>'],
  keyedPosts: 1,
};
const expected = () => {
  const { version } = JSON.parse(readFileSync(join(app, 'node_modules/@platform/sdk/package.json'), 'utf8'));
  return { ...EXPECTED, userAgents: [`platform-sdk/${version} node/${process.versions.node}`] };
};

const TYPED = `import { createClient, type Product, type VerifiedWebhook, verifyWebhook } from '@platform/sdk';
import { platformWebhook } from '@platform/sdk/express';
import { sqliteTokenStore } from '@platform/sdk/sqlite';
import { pgTokenStore } from '@platform/sdk/token-store-pg';
import { redisTokenStore } from '@platform/sdk/token-store-redis';
import type { TokenStore } from '@platform/sdk';

export async function typed(): Promise<string[]> {
  const client = createClient({ baseUrl: 'http://127.0.0.1:1', accessToken: 't', apiVersion: 'v20260901' });
  const page = await client.products.list({ fields: ['title'] });
  const title: string = page.products[0]!.title;
  // @ts-expect-error: only the fields asked for (and id) are typed
  page.products[0]!.vendor;
  const full: Product[] = (await client.products.list()).products;
  const { definition } = await client.admin.getMetafieldDefinition({ query: { id: '1' } });
  const namespace: string = definition.namespace;
  // @ts-expect-error: a product metafield needs both path parameters
  await client.admin.getProductMetafield({ params: { id: '1' } });
  // @ts-expect-error: the body is typed from the contract
  await client.admin.createMetafieldDefinition({ body: { definition: { owner_resource: 'products' } } });
  for await (const d of client.admin.listMetafieldDefinitions.iterate({ query: { limit: 10 } })) d.id.toUpperCase();
  const webhook: VerifiedWebhook = verifyWebhook('{}', new Headers(), 'secret');
  void platformWebhook({ secret: 's', onWebhook: (w) => void w.webhookId });
  void sqliteTokenStore;
  const shared: TokenStore[] = [redisTokenStore({ url: 'redis://127.0.0.1:6379' }), pgTokenStore({ connectionString: 'postgresql://x' })];
  void shared;
  return [title, namespace, webhook.topic, String(full.length)];
}
`;

describe('the packed SDK, installed outside the repository', () => {
  it('ships dist with @noble/hashes as its only dependency and zod, @ts-rest/core as peers, nothing of the workspace', () => {
    const pkg = JSON.parse(readFileSync(join(app, 'node_modules/@platform/sdk/package.json'), 'utf8'));
    expect(Object.keys(pkg.dependencies)).toEqual(['@noble/hashes']);
    expect(pkg.peerDependencies).toMatchObject({ zod: '^3.24.0', '@ts-rest/core': '^3.52.0' });
    expect(pkg.peerDependenciesMeta.zod).toBeUndefined();
    expect(pkg.engines).toEqual({ node: '>=20.19' });
    expect(JSON.stringify([pkg.dependencies, pkg.peerDependencies])).not.toMatch(/workspace:|catalog:/);
    const installed = readdirSync(join(app, 'node_modules/@platform'));
    expect(installed).toEqual(['sdk']);
    // Runs where fetch does: the main entry imports no Node module. Nor itself: the subpath entries
    // import it by name (`@platform/sdk`), which in the main entry would be a cycle.
    for (const file of ['index.mjs', 'index.cjs', 'index.d.mts', 'index.d.ts']) {
      const code = readFileSync(join(app, 'node_modules/@platform/sdk/dist', file), 'utf8');
      expect(code).not.toMatch(/(from|require\()\s*['"](node:|fs|crypto|http|better-sqlite3|@platform\/sdk)/);
    }
  });

  it('has a README that names nothing the package does not carry (no repository file, no decisions section)', () => {
    const root = join(app, 'node_modules/@platform/sdk');
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    // Places of the platform's repository, which an app team does not have.
    const repository =
      readme.match(/decisions §[\d.]+|(?:^|[\s`("])(?:\.ci|\.changeset|docs|apps|packages|tooling|scripts|test|src)\/[\w./-]*/gm) ?? [];
    expect(repository.map((m) => m.trim())).toEqual([]);
    // Every file the README names by its path is in the package.
    const files = [...readme.matchAll(/(?:^|[\s`("])((?:\.\/)?[\w.-]+(?:\/[\w.-]+)+\.(?:md|[cm]?[jt]s|json|d\.[cm]?ts))\b/gm)].map(
      (m) => m[1]!,
    );
    expect(files.filter((file) => !file.startsWith('@') && !existsSync(join(root, file)))).toEqual([]);
  });

  it("uses the app's own zod: one copy in the tree, none nested under the SDK or ts-rest", () => {
    expect(JSON.parse(readFileSync(join(app, 'node_modules/zod/package.json'), 'utf8')).version).toBe(APP_ZOD);
    expect(existsSync(join(app, 'node_modules/@platform/sdk/node_modules'))).toBe(false);
    expect(existsSync(join(app, 'node_modules/@ts-rest/core/node_modules/zod'))).toBe(false);
  });

  it('works from an ESM script against the real API', () => {
    writeFileSync(join(app, 'app.mjs'), ESM);
    const out = run(process.execPath, ['app.mjs']);
    expect(JSON.parse(out), out).toEqual(expected());
  });

  it('works from a CommonJS script against the real API', () => {
    writeFileSync(join(app, 'app.cjs'), CJS);
    const out = run(process.execPath, ['app.cjs']);
    expect(JSON.parse(out), out).toEqual(expected());
  });

  it(
    'type-checks under tsc --strict, as ESM and as CommonJS, declarations included',
    () => {
      writeFileSync(join(app, 'typed.mts'), TYPED);
      writeFileSync(join(app, 'typed.cts'), TYPED);
      const out = strictTypeErrors(app, ['typed.mts', 'typed.cts'], { declarations: [join(app, 'node_modules', '@platform', 'sdk')] });
      expect(out).toBe('');
    },
    TYPE_CHECK_TIMEOUT_MS,
  );
});
