import { signTokenRequest } from '@platform/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, listen, operator, startPlatform, testConfig, type TestPlatform } from './harness';
import { createOAuthApp, installWithToken, readShop, serviceNow, storeHost, type OAuthApp } from './oauth.helpers';

/*
 * Issue 14, finding 2 and decisions §5.2: a signed token call is accepted once. Refresh and cancel
 * sign only the timestamp (their body is empty) and their store is named by the unsigned Host, so
 * a captured call used to replay for ten minutes on every store the app is installed on.
 */

let t: TestPlatform;
let replica: TestPlatform;
const op = () => operator(t);

beforeAll(async () => {
  t = await startPlatform();
  // A second API on the same database: what a replica behind a load balancer sees.
  replica = await listen(testConfig(t.platform.config.databaseUrl));
  await op().createStore('alpha');
  await op().createStore('beta');
});
afterAll(async () => {
  await replica?.close();
  await t?.close();
});

/** One signed call, captured: the same bytes and headers can be sent again, to any host and any replica. */
function capture(app: OAuthApp, action: 'create' | 'refresh' | 'cancel', timestamp: number, body = '') {
  const headers: Record<string, string> = {
    appkey: app.app_key,
    timestamp: String(timestamp),
    sign: signTokenRequest({ secret: app.app_secret, rawBody: body, timestamp }),
  };
  if (body) headers['content-type'] = 'application/json; charset=utf-8';
  return (target: TestPlatform, handle: string, change: Record<string, string> = {}) =>
    call(`${target.origin}/admin/oauth/token/${action}`, {
      method: 'POST',
      rawBody: body,
      headers: { ...headers, host: storeHost(target, handle), ...change },
    });
}

function expectReplayRefused(r: { status: number; body: { i18nCode?: string; errors?: string } }) {
  expect(r.status).toBe(401);
  expect(r.body.i18nCode).toBe('INVALID_SIGNATURE');
  expect(r.body.errors).toMatch(/already made: a signed call is accepted once/);
}

describe('a signed token call is accepted once (decisions §5.2, issue 14 finding 2)', () => {
  it('refuses a replayed refresh, on the same store and on another, and mints no token', async () => {
    const app = await createOAuthApp(t, 'public');
    await installWithToken(t, 'alpha', app);
    await installWithToken(t, 'beta', app);
    const refresh = capture(app, 'refresh', await serviceNow(t));
    const first = await refresh(t, 'alpha');
    expect(first.status).toBe(200);
    const tokensBefore = await t.db.prisma.accessToken.count();
    expectReplayRefused(await refresh(t, 'alpha'));
    expectReplayRefused(await refresh(t, 'beta'));
    expectReplayRefused(await refresh(replica, 'beta'));
    expect(await t.db.prisma.accessToken.count()).toBe(tokensBefore);
  });

  it('refuses a cancel signed for one store and replayed on another: the app stays installed there', async () => {
    const app = await createOAuthApp(t, 'public');
    await installWithToken(t, 'alpha', app);
    const onBeta = await installWithToken(t, 'beta', app);
    const cancel = capture(app, 'cancel', await serviceNow(t));
    expect((await cancel(t, 'alpha')).status).toBe(200);
    expectReplayRefused(await cancel(t, 'beta'));
    expect((await readShop(t, onBeta.accessToken)).status).toBe(200);
  });

  it('refuses the repeat on another replica, and the repeat with its sign in capitals', async () => {
    const app = await createOAuthApp(t, 'public');
    await installWithToken(t, 'alpha', app);
    const refresh = capture(app, 'refresh', await serviceNow(t));
    expect((await refresh(replica, 'alpha')).status).toBe(200);
    expectReplayRefused(await refresh(t, 'alpha'));
    const sign = signTokenRequest({ secret: app.app_secret, rawBody: '', timestamp: await serviceNow(t) });
    expectReplayRefused(await refresh(t, 'alpha', { sign: sign.toUpperCase() }));
  });

  it('accepts one of two copies sent at once', async () => {
    const app = await createOAuthApp(t, 'public');
    await installWithToken(t, 'alpha', app);
    const refresh = capture(app, 'refresh', (await serviceNow(t)) + 7);
    const answers = await Promise.all([refresh(t, 'alpha'), refresh(replica, 'alpha'), refresh(t, 'alpha')]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 401, 401]);
  });

  it('refuses a replayed create before its code is even looked at', async () => {
    const app = await createOAuthApp(t, 'public');
    const install = await op().call(`/stores/alpha/apps/${app.id}/install`, { body: { scopes: app.scopes } });
    const create = capture(app, 'create', await serviceNow(t), JSON.stringify({ code: install.body.code }));
    expect((await create(t, 'alpha')).status).toBe(200);
    expectReplayRefused(await create(replica, 'alpha'));
  });

  it('signs every call anew: a new timestamp is a new call, and an old one stays refused once its window has passed', async () => {
    const app = await createOAuthApp(t, 'public');
    await installWithToken(t, 'alpha', app);
    const now = await serviceNow(t);
    const refresh = capture(app, 'refresh', now);
    expect((await refresh(t, 'alpha')).status).toBe(200);
    expect((await capture(app, 'refresh', now + 1)(t, 'alpha')).status).toBe(200);
    await op().advanceClock(10 * 60 + 1);
    const stale = await refresh(t, 'alpha');
    expect(stale.status).toBe(401);
    expect(stale.body.errors).toMatch(/more than 10 minutes away/);
  });
});

describe('scope in the token answers (decisions §5.2)', () => {
  it('is the granted set exactly as requested, read scopes beside their write scopes, on create and refresh', async () => {
    const app = await createOAuthApp(t, 'public', ['read_products', 'write_products', 'read_inventory']);
    const token = await installWithToken(t, 'alpha', app);
    expect(token.scope).toBe('read_products,write_products,read_inventory');
    const refreshed = await capture(app, 'refresh', (await serviceNow(t)) + 3)(t, 'alpha');
    expect(refreshed.body.data.scope).toBe('read_products,write_products,read_inventory');
  });
});
