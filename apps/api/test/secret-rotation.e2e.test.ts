import { createDb } from '@platform/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptedSecrets } from '../src/config';
import { call, freshDatabase, listen, operator, OPERATOR_TOKEN, serverErrors, testConfig, VERSION, type TestPlatform } from './harness';

// Issue 15, rotating PLATFORM_SECRET (docs/production.md): replicas restarted with a new secret keep
// accepting cursors signed with the previous one until PLATFORM_SECRET_PREVIOUS_UNTIL, never after.
// Issue 43 (decisions §12.5): answers kept for Idempotency-Keys are sealed with the secret; the
// previous secret still opens them.
const OLD = 'the-secret-before-the-rotation-0123';
const NEW = 'the-secret-after-the-rotation-45678';

let database: Awaited<ReturnType<typeof freshDatabase>>;
let before: TestPlatform;
let token: string;
let cursorUrl: string;
/** A keyed operator call answered before the rotation: a one-time sign-in link, kept sealed. */
const SIGN_IN = { path: '/platform/v1/stores/rotate/admin_sessions', key: 'sign-in-before-rotation' };
let signIn: { text: string; url: string };

beforeAll(async () => {
  database = await freshDatabase();
  const config = testConfig(database.url, { PLATFORM_SECRET: OLD });
  before = await listen(config);
  const op = operator(before);
  await op.createStore('rotate');
  token = (await op.createPrivateApp('rotate', ['read_products'])).access_token;
  await op.createProducts(
    'rotate',
    [1, 2, 3, 4].map((i) => ({ title: `P${i}` })),
  );
  const first = await call(`${before.origin}/admin/openapi/${VERSION}/products/products.json?limit=2&fields=title`, { token });
  cursorUrl = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')![1]!;
  const kept = await keyedSignIn(before);
  expect(kept.status).toBe(201);
  signIn = { text: kept.text, url: kept.body.url };
  await before.close();
});
afterAll(() => database?.drop());

/** The cursor made before the rotation, followed on a replica started with `env`. */
async function followOn(env: Record<string, string>) {
  const after = await listen(testConfig(database.url, env));
  try {
    const url = new URL(cursorUrl);
    url.port = String(after.port);
    return await call(url.toString(), { token });
  } finally {
    await after.close();
  }
}

function keyedSignIn(t: TestPlatform) {
  return call(`${t.origin}${SIGN_IN.path}`, { method: 'POST', token: OPERATOR_TOKEN, headers: { 'idempotency-key': SIGN_IN.key } });
}

/** The keyed call repeated on a replica started with `env`, and the sign-in links then stored. */
async function replayOn(env: Record<string, string>) {
  const after = await listen(testConfig(database.url, env));
  try {
    return { answer: await keyedSignIn(after), links: await after.db.prisma.merchantSignInLink.count() };
  } finally {
    await after.close();
  }
}

/** The kept row of the keyed call, every column as text. */
async function keptRowText(): Promise<string> {
  const reader = createDb(database.url);
  try {
    const rows = await reader.prisma.idempotencyKey.findMany({ where: { key: SIGN_IN.key } });
    return JSON.stringify(rows, (_name, value: unknown) =>
      typeof value === 'bigint' ? String(value) : value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : value,
    );
  } finally {
    await reader.close();
  }
}

describe('rotating PLATFORM_SECRET (issue 15)', () => {
  it('a cursor signed with the previous secret works while it is accepted', async () => {
    const r = await followOn({
      PLATFORM_SECRET: NEW,
      PLATFORM_SECRET_PREVIOUS: OLD,
      PLATFORM_SECRET_PREVIOUS_UNTIL: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(r.status).toBe(200);
    expect(r.body.products.map((p: { title: string }) => p.title)).toEqual(['P3', 'P4']);
  });

  it('is refused once PLATFORM_SECRET_PREVIOUS_UNTIL has passed, and without the previous secret', async () => {
    const late = await followOn({
      PLATFORM_SECRET: NEW,
      PLATFORM_SECRET_PREVIOUS: OLD,
      PLATFORM_SECRET_PREVIOUS_UNTIL: new Date(Date.now() - 1000).toISOString(),
    });
    expect(late.status).toBe(400);
    expect((await followOn({ PLATFORM_SECRET: NEW })).status).toBe(400);
  });

  it('needs PLATFORM_SECRET_PREVIOUS_UNTIL with the previous secret, and never signs with it', () => {
    expect(() => testConfig(database.url, { PLATFORM_SECRET: NEW, PLATFORM_SECRET_PREVIOUS: OLD })).toThrow(
      /PLATFORM_SECRET_PREVIOUS_UNTIL: required/,
    );
    const config = testConfig(database.url, {
      PLATFORM_SECRET: NEW,
      PLATFORM_SECRET_PREVIOUS: OLD,
      PLATFORM_SECRET_PREVIOUS_UNTIL: '2030-01-01T00:00:00Z',
    });
    expect(acceptedSecrets(config, Date.parse('2029-12-31T23:59:59Z'))).toEqual([NEW, OLD]);
    expect(acceptedSecrets(config, Date.parse('2030-01-01T00:00:00Z'))).toEqual([NEW]);
  });
});

describe('answers kept for Idempotency-Keys across a rotation (issue 43, decisions §12.5)', () => {
  it('replays an answer the previous secret sealed while PLATFORM_SECRET_PREVIOUS is set, even past its _UNTIL', async () => {
    const kept = await keptRowText();
    expect(kept).toContain(SIGN_IN.key);
    expect(kept).not.toContain(new URL(signIn.url).searchParams.get('token')!);
    for (const until of [Date.now() + 3600_000, Date.now() - 1000]) {
      const { answer } = await replayOn({
        PLATFORM_SECRET: NEW,
        PLATFORM_SECRET_PREVIOUS: OLD,
        PLATFORM_SECRET_PREVIOUS_UNTIL: new Date(until).toISOString(),
      });
      expect([answer.status, answer.headers.get('idempotent-replayed'), answer.body.url]).toEqual([201, 'true', signIn.url]);
      expect(answer.text).toBe(signIn.text);
    }
  });

  it('without the secret that sealed it, the answer cannot be read: 503 with Retry-After, and nothing runs again', async () => {
    const linksBefore = (await replayOn({ PLATFORM_SECRET: OLD })).links;
    const errorsBefore = serverErrors.length;
    const { answer, links } = await replayOn({ PLATFORM_SECRET: NEW });
    // Expected here: a 503 is the answer; every other 5xx still fails the suite.
    serverErrors.splice(errorsBefore);
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.body.errors).toMatch(/cannot be read here; retry shortly with the same key/);
    expect(answer.text).not.toContain(new URL(signIn.url).searchParams.get('token')!);
    expect(links).toBe(linksBefore);
  });
});
