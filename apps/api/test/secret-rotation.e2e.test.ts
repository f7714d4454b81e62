import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptedSecrets } from '../src/config';
import { call, freshDatabase, listen, operator, testConfig, VERSION, type TestPlatform } from './harness';

// Issue 15, rotating PLATFORM_SECRET (docs/production.md): replicas restarted with a new secret keep
// accepting cursors signed with the previous one until PLATFORM_SECRET_PREVIOUS_UNTIL, never after.
const OLD = 'the-secret-before-the-rotation-0123';
const NEW = 'the-secret-after-the-rotation-45678';

let database: Awaited<ReturnType<typeof freshDatabase>>;
let before: TestPlatform;
let token: string;
let cursorUrl: string;

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
