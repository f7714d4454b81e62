/*
 * The OAuth token calls racing each other (decisions §5.2-§5.3): on PostgreSQL two transactions run
 * at once, and a refresh racing a cancel answered 500 before refreshes, uninstalls and cancels of
 * one installation took its row's lock first (apps.service.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operator, startPlatform, type TestPlatform } from './harness';
import { createOAuthApp, installWithToken, readShop, serviceNow, storeHost, tokenCall, type OAuthApp } from './oauth.helpers';

let t: TestPlatform;
const op = () => operator(t);

beforeAll(async () => {
  t = await startPlatform();
  await op().createStore('alpha');
});
afterAll(async () => t?.close());

async function code(handle: string, app: OAuthApp): Promise<string> {
  const r = await op().call(`/stores/${handle}/apps/${app.id}/install`, { body: { scopes: app.scopes } });
  expect(r.status).toBe(201);
  return r.body.code;
}

describe('OAuth token calls at the same moment', () => {
  it('gives one token for one code when two exchanges race', async () => {
    const app = await createOAuthApp(t, 'public');
    const c = await code('alpha', app);
    const now = await serviceNow(t);
    const answers = await Promise.all([1, 2, 3].map(() => tokenCall(t, 'create', app, { body: { code: c }, nowMs: now })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400]);
  });

  it('answers refreshes racing a cancel with 200 or 404 in the envelope, never 500, and leaves no token working', async () => {
    const app = await createOAuthApp(t, 'public');
    const first = await installWithToken(t, 'alpha', app);
    const now = await serviceNow(t);
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => tokenCall(t, 'refresh', app, { host: storeHost(t, 'alpha'), nowMs: now })),
      tokenCall(t, 'cancel', app, { host: storeHost(t, 'alpha'), nowMs: now }),
    ]);
    expect(answers.at(-1)!.status).toBe(200);
    for (const a of answers.slice(0, -1))
      expect([200, '404 NOT_FOUND']).toContain(a.status === 200 ? 200 : `${a.status} ${a.body.i18nCode}`);
    const tokens = [first.accessToken, ...answers.slice(0, -1).flatMap((a) => (a.status === 200 ? [a.body.data.accessToken] : []))];
    for (const token of tokens) expect((await readShop(t, token)).status).toBe(401);
  });
});
