/*
 * Issue 43, finding 1 (decisions §12.5): the answers kept for Idempotency-Keys are credentials at
 * rest. After each keyed operator call whose answer holds one (a private app's token, a refreshed
 * token, a sign-in link, an OAuth code), neither the SQLite file with its WAL nor a PostgreSQL dump
 * holds it, and the replay still returns it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, listen, operator, testConfig, type TestPlatform } from './harness';
import { createOAuthApp } from './oauth.helpers';

let database: Awaited<ReturnType<typeof freshDatabase>>;
let t: TestPlatform;
const op = () => operator(t);
let keys = 0;
const withKey = () => ({ 'idempotency-key': `at-rest-${(keys += 1)}` });

beforeAll(async () => {
  database = await freshDatabase();
  t = await listen(testConfig(database.url, { PLATFORM_RATE_LIMIT_CAPACITY: '100000' }));
  await op().createStore('vault');
});
afterAll(async () => {
  await t?.close();
  await database?.drop();
});

/** pg_dump of the version the machine's server has (.ci/run installs it with the server). */
function pgDump(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => `${root}/${v}/bin/pg_dump`).find((path) => existsSync(path));
  return found ?? 'pg_dump';
}

/** Everything the database holds, as an attacker with the files or a dump would read it. */
function databaseAtRest(): string {
  if (database.url.startsWith('file:')) {
    const file = database.url.slice('file:'.length);
    const wal = `${file}-wal`;
    return Buffer.concat([readFileSync(file), existsSync(wal) ? readFileSync(wal) : Buffer.alloc(0)]).toString('latin1');
  }
  return execFileSync(pgDump(), ['--dbname', database.url], { maxBuffer: 256 * 1024 * 1024 }).toString('utf8');
}

/** The idempotency_keys table alone, every column (an app secret is also, by design, in `apps`). */
async function keptRows(): Promise<string> {
  const rows = await t.db.prisma.idempotencyKey.findMany();
  return JSON.stringify(rows, (_name, value: unknown) =>
    typeof value === 'bigint' ? String(value) : value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : value,
  );
}

/** The keyed call, then its replay: the same answer, marked replayed. */
async function keyedTwice(path: string, body?: unknown) {
  const headers = withKey();
  const init = body === undefined ? { method: 'POST', headers } : { body, headers };
  const first = await op().call(path, init);
  expect(first.status).toBeLessThan(300);
  const replay = await op().call(path, init);
  expect([replay.status, replay.headers.get('idempotent-replayed'), replay.text]).toEqual([first.status, 'true', first.text]);
  return first;
}

describe('kept answers holding credentials (decisions §12.5)', () => {
  it("POST /apps (private): the 3-year token is not in the database; the app's secret is not in the kept rows", async () => {
    const created = await keyedTwice('/apps', {
      app: { name: 'Vaulted', kind: 'private', scopes: ['read_products'], store_handle: 'vault' },
    });
    const token = created.body.access_token as string;
    const secret = created.body.app.app_secret as string;
    expect(token).toMatch(/\S{32}/);
    expect(databaseAtRest()).not.toContain(token);
    // The secret itself lives in `apps.app_secret` (signed OAuth calls are checked with it); the
    // kept answer must not be a second copy.
    expect(await keptRows()).not.toContain(secret);
    expect(await keptRows()).not.toContain(token);
  });

  it('POST .../token/refresh: the new token is not in the database', async () => {
    const app = await op().createPrivateApp('vault', ['read_products']);
    const refreshed = await keyedTwice(`/stores/vault/apps/${app.app.id}/token/refresh`);
    const token = refreshed.body.access_token as string;
    expect(token).toMatch(/\S{32}/);
    expect(token).not.toBe(app.access_token);
    expect(databaseAtRest()).not.toContain(token);
  });

  it('POST .../admin_sessions: the one-time sign-in link is not in the database', async () => {
    const session = await keyedTwice('/stores/vault/admin_sessions');
    const link = session.body.url as string;
    const token = new URL(link).searchParams.get('token')!;
    expect(token).toMatch(/\S{16}/);
    const atRest = databaseAtRest();
    expect(atRest).not.toContain(token);
    expect(atRest).not.toContain(link);
  });

  it('POST .../install: the OAuth code is not in the database', async () => {
    const app = await createOAuthApp(t, 'public', ['read_products']);
    const install = await keyedTwice(`/stores/vault/apps/${app.id}/install`, { scopes: ['read_products'] });
    const code = install.body.code as string;
    expect(code).toMatch(/\S{16}/);
    expect(databaseAtRest()).not.toContain(code);
  });

  it('replays an answer a release before sealing kept in plain text, until its 24 hours are over', async () => {
    const body = { product: { title: 'Kept before the upgrade' } };
    const first = await op().call('/stores/vault/products', { body, headers: { 'idempotency-key': 'plain-kept' } });
    expect(first.status).toBe(201);
    // What that release wrote: state 'done', the body as text, nothing sealed.
    await t.db.prisma.idempotencyKey.updateMany({ where: { key: 'plain-kept' }, data: { state: 'done', body: first.text, sealed: null } });
    const replay = await op().call('/stores/vault/products', { body, headers: { 'idempotency-key': 'plain-kept' } });
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.text]).toEqual([201, 'true', first.text]);
  });
});
