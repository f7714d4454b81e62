/*
 * POSTs with an Idempotency-Key (docs/idempotency.md) on the real server and database: replays,
 * refusals, who shares a key, expiry on the service clock (decisions §10), and a first request that
 * failed with a 5xx.
 */
import { idempotencyFingerprint } from '@platform/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { call, operator, serverErrors, startPlatform, storeWithApp, VERSION, type TestPlatform } from './harness';
import { createOAuthApp, installWithToken } from './oauth.helpers';

let t: TestPlatform;
let shop: Awaited<ReturnType<typeof storeWithApp>>;
const op = () => operator(t);
let keys = 0;
const newKey = () => `key-${Date.now()}-${(keys += 1)}`;
const hook = (address: string) => ({ webhook: { topic: 'inventory_items/update', address: `https://hooks.example.com/${address}` } });
const withKey = (key: string) => ({ 'idempotency-key': key });

beforeAll(async () => {
  t = await startPlatform({ PLATFORM_RATE_LIMIT_CAPACITY: '100000' });
  shop = await storeWithApp(t, 'idem', ['read_inventory', 'write_products', 'read_products']);
});
afterAll(() => t.close());

const subscriptions = async (admin = shop.admin) =>
  ((await admin('/webhooks.json')).body.webhooks as { address: string }[]).map((w) => w.address);
const keysStored = (key: string) => t.db.prisma.idempotencyKey.count({ where: { key } });

describe('a repeat of an Admin API POST with the same key and body', () => {
  it('answers the stored status and body with Idempotent-Replayed: true and a fresh traceId, running nothing again', async () => {
    const key = newKey();
    const first = await shop.admin('/webhooks.json', { body: hook('replayed'), headers: withKey(key) });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await shop.admin('/webhooks.json', { body: hook('replayed'), headers: withKey(key) });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('traceid')).toMatch(/\S/);
    expect(again.headers.get('traceid')).not.toBe(first.headers.get('traceid'));
    expect(again.headers.get('x-platform-api-version')).toBe(VERSION);
    expect((await subscriptions()).filter((a) => a.endsWith('/replayed'))).toHaveLength(1);
  });

  it('is what makes a retry safe: without a key the repeat runs and meets the duplicate rule (decisions §11.1)', async () => {
    expect((await shop.admin('/webhooks.json', { body: hook('no-key') })).status).toBe(201);
    const repeat = await shop.admin('/webhooks.json', { body: hook('no-key') });
    expect(repeat.status).toBe(422);
    expect(repeat.headers.get('idempotent-replayed')).toBeNull();
  });

  it('replays a first answer that was a 4xx too (the request was judged; judging it again gives the same)', async () => {
    const key = newKey();
    const bad = { webhook: { topic: 'orders/create', address: 'https://hooks.example.com/x' } };
    const first = await shop.admin('/webhooks.json', { body: bad, headers: withKey(key) });
    expect(first.status).toBe(422);
    const again = await shop.admin('/webhooks.json', { body: bad, headers: withKey(key) });
    expect([again.status, again.text, again.headers.get('idempotent-replayed')]).toEqual([422, first.text, 'true']);
  });
});

describe('refusals', () => {
  it('refuses the same key with another body (422) and runs nothing', async () => {
    const key = newKey();
    expect((await shop.admin('/webhooks.json', { body: hook('first-body'), headers: withKey(key) })).status).toBe(201);
    const other = await shop.admin('/webhooks.json', { body: hook('second-body'), headers: withKey(key) });
    expect(other.status).toBe(422);
    expect(other.body.errors).toMatch(/Idempotency-Key was used for another request/);
    expect(other.headers.get('traceid')).toMatch(/\S/);
    expect(await subscriptions()).not.toContain('https://hooks.example.com/second-body');
  });

  it('refuses the same key on another path of the same store (422)', async () => {
    const key = newKey();
    expect((await shop.admin('/webhooks.json', { body: hook('path-a'), headers: withKey(key) })).status).toBe(201);
    const ids = await op().createProducts('idem', [{ title: 'Feedback target' }]);
    const feedback = { resource_feedback: { state: 'success', feedback_generated_at: '2026-11-22T12:05:01+08:00', messages: [] } };
    const other = await shop.admin(`/products/${ids[0]}/resource_feedback.json`, { body: feedback, headers: withKey(key) });
    expect(other.status).toBe(422);
  });

  it.each([
    ['empty', ''],
    ['256 characters long', 'k'.repeat(256)],
    ['not ASCII', 'clé'],
  ])('refuses a key that is %s (400), before running anything', async (_what, key) => {
    const r = await shop.admin('/webhooks.json', { body: hook(`bad-key-${key.length}`), headers: withKey(key) });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ errors: 'Idempotency-Key must be 1 to 255 printable ASCII characters' });
    expect(await subscriptions()).not.toContain(`https://hooks.example.com/bad-key-${key.length}`);
  });

  it('refuses the header sent twice (400) rather than reading the two joined', async () => {
    const response = await request(`${t.origin}/admin/openapi/${VERSION}/webhooks.json`, {
      method: 'POST',
      headers: [
        'authorization',
        `Bearer ${shop.token}`,
        'content-type',
        'application/json',
        'idempotency-key',
        'a',
        'idempotency-key',
        'b',
      ],
      body: JSON.stringify(hook('twice')),
    });
    expect(response.statusCode).toBe(400);
    expect(await response.body.json()).toEqual({ errors: 'Idempotency-Key must be sent once' });
  });

  it('accepts 255 printable characters, spaces and punctuation included', async () => {
    const key = `${'~!@#$%^&*() '.repeat(21)}abc`;
    expect(key).toHaveLength(255);
    expect((await shop.admin('/webhooks.json', { body: hook('long-key'), headers: withKey(key) })).status).toBe(201);
    expect((await shop.admin('/webhooks.json', { body: hook('long-key'), headers: withKey(key) })).headers.get('idempotent-replayed')).toBe(
      'true',
    );
  });

  it('checks the token first: a caller without a valid token gets 401 and stores nothing', async () => {
    const key = newKey();
    const r = await call(`${t.origin}/admin/openapi/${VERSION}/webhooks.json`, {
      token: 'not-a-token',
      body: hook('anonymous'),
      headers: withKey(key),
    });
    expect(r.status).toBe(401);
    expect(await keysStored(key)).toBe(0);
  });
});

describe('a first request still running, or lost with its replica', () => {
  const running = async (key: string, body: unknown, lockedUntil: Date) => {
    const now = new Date(Date.parse((await op().call('/clock')).body.now));
    await t.db.prisma.idempotencyKey.create({
      data: {
        scope: `app:${shop.app.app.id}:store:${shop.store.id}`,
        key,
        fingerprint: idempotencyFingerprint({ method: 'POST', url: `/admin/openapi/${VERSION}/webhooks.json`, body }),
        state: 'running',
        createdAt: now,
        expiresAt: new Date(now.getTime() + 3_600_000),
        lockedUntil,
      },
    });
  };

  it('answers 409 with Retry-After while another request holds the key', async () => {
    const key = newKey();
    await running(key, hook('in-flight'), new Date(Date.now() + 60_000));
    const r = await shop.admin('/webhooks.json', { body: hook('in-flight'), headers: withKey(key) });
    expect(r.status).toBe(409);
    expect(r.body.errors).toMatch(/still being processed/);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(await subscriptions()).not.toContain('https://hooks.example.com/in-flight');
  });

  it('runs the repeat once the holder stopped renewing its claim (a replica that died), then replays it', async () => {
    const key = newKey();
    await running(key, hook('taken-over'), new Date(Date.now() - 1_000));
    const r = await shop.admin('/webhooks.json', { body: hook('taken-over'), headers: withKey(key) });
    expect([r.status, r.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect(
      (await shop.admin('/webhooks.json', { body: hook('taken-over'), headers: withKey(key) })).headers.get('idempotent-replayed'),
    ).toBe('true');
  });
});

describe('who shares a key', () => {
  it('another app on the same store has keys of its own', async () => {
    const key = newKey();
    const other = await op().createPrivateApp('idem', ['read_inventory']);
    const otherAdmin = (path: string, init: Parameters<typeof call>[1] = {}) =>
      call(`${t.origin}/admin/openapi/${VERSION}${path}`, { token: other.access_token, ...init });
    expect((await shop.admin('/webhooks.json', { body: hook('per-app'), headers: withKey(key) })).status).toBe(201);
    const second = await otherAdmin('/webhooks.json', { body: hook('per-app'), headers: withKey(key) });
    expect([second.status, second.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect(await subscriptions(otherAdmin)).toEqual(['https://hooks.example.com/per-app']);
  });

  it('the same app on another store has keys of its own there (same path, same body)', async () => {
    await op().createStore('idem-two');
    await op().createStore('idem-three');
    const app = await createOAuthApp(t, 'public', ['read_inventory']);
    const tokens = [await installWithToken(t, 'idem-two', app), await installWithToken(t, 'idem-three', app)];
    const key = newKey();
    for (const { accessToken } of tokens) {
      const r = await call(`${t.origin}/admin/openapi/${VERSION}/webhooks.json`, {
        token: accessToken,
        body: hook('per-store'),
        headers: withKey(key),
      });
      expect([r.status, r.headers.get('idempotent-replayed')]).toEqual([201, null]);
    }
  });

  it('the operator has keys per store: the same key on two stores runs on both', async () => {
    const key = newKey();
    const body = { product: { title: 'Operator keyed' } };
    const first = await op().call('/stores/idem-two/products', { body, headers: withKey(key) });
    const second = await op().call('/stores/idem-three/products', { body, headers: withKey(key) });
    expect([first.status, second.status, second.headers.get('idempotent-replayed')]).toEqual([201, 201, null]);
    const replay = await op().call('/stores/idem-two/products', { body, headers: withKey(key) });
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.text]).toEqual([201, 'true', first.text]);
  });
});

describe('expiry and failures', () => {
  it('keeps a key 24 hours of the service clock, then runs the repeat for real and purges the old key', async () => {
    await op().createStore('idem-clock');
    const key = newKey();
    const body = { product: { title: 'Once a day' } };
    const first = await op().call('/stores/idem-clock/products', { body, headers: withKey(key) });
    expect(first.status).toBe(201);
    await op().advanceClock(24 * 3600 - 1);
    expect((await op().call('/stores/idem-clock/products', { body, headers: withKey(key) })).headers.get('idempotent-replayed')).toBe(
      'true',
    );
    // Past the 24 hours, and a minute after the last purge: any keyed POST purges what has expired
    // (at most once a minute of the service clock).
    await op().advanceClock(61);
    expect(
      (await op().call('/stores/idem-clock/products', { body: { product: { title: 'Purger' } }, headers: withKey(newKey()) })).status,
    ).toBe(201);
    expect(await keysStored(key)).toBe(0);
    const later = await op().call('/stores/idem-clock/products', { body, headers: withKey(key) });
    expect([later.status, later.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect(later.body.product.id).not.toBe(first.body.product.id);
  });

  it('does not keep a first answer that was a 5xx: the retry runs for real', async () => {
    await op().createStore('idem-fail');
    const key = newKey();
    const body = { product: { title: 'After the outage' } };
    const table = 'products';
    if (t.db.provider === 'sqlite') {
      await t.db.prisma.$executeRawUnsafe(
        `CREATE TRIGGER idem_fail BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'forced failure'); END`,
      );
    } else {
      await t.db.prisma.$executeRawUnsafe(
        `CREATE FUNCTION idem_fail() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'forced failure'; END $$ LANGUAGE plpgsql`,
      );
      await t.db.prisma.$executeRawUnsafe(`CREATE TRIGGER idem_fail BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION idem_fail()`);
    }
    try {
      const errorsBefore = serverErrors.length;
      const failed = await op().call('/stores/idem-fail/products', { body, headers: withKey(key) });
      expect(failed.status).toBe(500);
      // Expected here: the failure is forced; every other 500 still fails the suite.
      serverErrors.splice(errorsBefore);
    } finally {
      await t.db.prisma.$executeRawUnsafe(t.db.provider === 'sqlite' ? 'DROP TRIGGER idem_fail' : `DROP TRIGGER idem_fail ON ${table}`);
      if (t.db.provider !== 'sqlite') await t.db.prisma.$executeRawUnsafe('DROP FUNCTION idem_fail()');
    }
    expect(await keysStored(key)).toBe(0);
    const retry = await op().call('/stores/idem-fail/products', { body, headers: withKey(key) });
    expect([retry.status, retry.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect(retry.body.product.title).toBe('After the outage');
  });

  it('leaves other methods alone: a PATCH with a key runs each time', async () => {
    const ids = await op().createProducts('idem', [{ title: 'Patch target' }]);
    const key = newKey();
    for (const title of ['One', 'Two']) {
      const r = await op().call(`/stores/idem/products/${ids[0]}`, {
        method: 'PATCH',
        body: { product: { title } },
        headers: withKey(key),
      });
      expect([r.status, r.body.product.title, r.headers.get('idempotent-replayed')]).toEqual([200, title, null]);
    }
  });
});
