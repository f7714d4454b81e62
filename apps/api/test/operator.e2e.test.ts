import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchOutbox } from '@platform/db';
import { call, OPERATOR_TOKEN, operator, startPlatform, type TestPlatform } from './harness';
import { eventually } from './metafields.helpers';

const wokenAfter = (wakes: () => number, before: number) =>
  eventually(async () => (wakes() > before ? true : undefined), 5000, 'a wake of the senders');

let t: TestPlatform;
const op = () => operator(t);

beforeAll(async () => {
  t = await startPlatform();
});
afterAll(() => t.close());

describe('the manual clock (decisions §10)', () => {
  it('reads exactly the instant it was set to, and stands still until moved', async () => {
    const set = await op().call('/clock', { body: { now: '2027-01-01T00:00:00Z' } });
    expect(set.status).toBe(200);
    expect(set.body.now).toBe('2027-01-01T00:00:00.000Z');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await op().call('/clock')).body.now).toBe('2027-01-01T00:00:00.000Z');
    expect(await op().advanceClock(300)).toBe('2027-01-01T00:05:00.000Z');
    expect(await op().advanceClock(-300)).toBe('2027-01-01T00:00:00.000Z');
  });

  it('wakes the webhook senders when it moves (retries it makes due go out at once, not at their next poll)', async () => {
    let wakes = 0;
    const watch = watchOutbox(
      t.db.url,
      () => wakes++,
      () => undefined,
    );
    // Until no wake has come for 300 ms: the watch's own first one, and any late event of earlier writes.
    const settled = async () => {
      for (let seen = -1; seen !== wakes;) {
        seen = wakes;
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      return wakes;
    };
    try {
      await watch.ready;
      const before = await settled();
      expect((await op().call('/clock', { body: { advance_seconds: 60 } })).status).toBe(200);
      await wokenAfter(() => wakes, before);
      const moved = await settled();
      expect((await op().call('/clock', { body: { now: '2027-02-01T00:00:00Z' } })).status).toBe(200);
      await wokenAfter(() => wakes, moved);
    } finally {
      await watch.close();
    }
  });

  it('takes exactly one of advance_seconds and now, and a now the platform can store', async () => {
    for (const body of [{}, { advance_seconds: 5, now: '2027-01-01T00:00:00Z' }, { advance_seconds: '5' }, { later: 1 }]) {
      const r = await op().call('/clock', { body });
      expect(r.status).toBe(422);
      expect(r.body.errors).toMatch(/^(body|advance_seconds)/);
    }
    for (const now of ['0000-01-01T00:00:00Z', '9999-12-31T00:00:00Z']) {
      const out = await op().call('/clock', { body: { now } });
      expect(`${out.status} ${out.body.errors}`).toBe('422 now: must be between 1970-01-01T00:00:00Z and 9999-12-30T23:59:59Z');
    }
    const noOffset = await op().call('/clock', { body: { now: '2027-01-01T00:00:00' } });
    expect(noOffset.status).toBe(422);
    expect(noOffset.body.errors).toMatch(/^now: /);
  });

  it('is not movable with the system clock: 404 whatever the body', async () => {
    const system = await startPlatform({ PLATFORM_CLOCK: 'system' });
    try {
      for (const body of [{}, { advance_seconds: 60 }]) {
        const r = await call(`${system.origin}/platform/v1/clock`, { token: OPERATOR_TOKEN, body });
        expect(r.status).toBe(404);
      }
      const read = await call(`${system.origin}/platform/v1/clock`, { token: OPERATOR_TOKEN });
      expect(Math.abs(Date.parse(read.body.now) - Date.now())).toBeLessThan(60_000);
    } finally {
      await system.close();
    }
  });
});

describe('timestamps of stores and products (decisions §3.3, §10)', () => {
  it('come from the service clock, updated_at never before created_at', async () => {
    await op().advanceClock(3600);
    const store = await op().createStore('stamps');
    expect(store.updated_at).toBe(store.created_at);
    const now = (await op().call('/clock')).body.now as string;
    expect(Date.parse(store.created_at)).toBe(Math.floor(Date.parse(now) / 1000) * 1000);
    const r = await op().call('/stores/stamps/products', { body: { product: { title: 'Stamped' } } });
    expect(r.body.product.updated_at).toBe(r.body.product.created_at);
    expect(r.body.product.created_at).toBe(store.created_at);
  });

  it('a PATCH moves updated_at even in the same second, and never back', async () => {
    const created = (await op().call('/stores/stamps/products', { body: { product: { title: 'Patched' } } })).body.product;
    const first = (await op().call(`/stores/stamps/products/${created.id}`, { method: 'PATCH', body: { product: { title: 'Once' } } })).body
      .product;
    const second = (await op().call(`/stores/stamps/products/${created.id}`, { method: 'PATCH', body: { product: { title: 'Twice' } } }))
      .body.product;
    expect(Date.parse(first.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));
    expect(Date.parse(second.updated_at)).toBeGreaterThan(Date.parse(first.updated_at));
    expect(second.created_at).toBe(created.created_at);
    const store = (await op().call('/stores/stamps', { method: 'PATCH', body: { store: { name: 'Renamed' } } })).body.store;
    expect(Date.parse(store.updated_at)).toBeGreaterThan(Date.parse(store.created_at));
  });
});

describe('concurrent PATCHes of one product (decisions §10)', () => {
  it('each move updated_at: five at once give five different times', async () => {
    const created = (await op().call('/stores/stamps/products', { body: { product: { title: 'Busy' } } })).body.product;
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        op().call(`/stores/stamps/products/${created.id}`, { method: 'PATCH', body: { product: { title: `Busy ${i}` } } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.product.updated_at)).size).toBe(5);
    // Each answer is its own write: the title it set, not a later PATCH's.
    answers.forEach((a, i) => expect(a.body.product.title).toBe(`Busy ${i}`));
  });

  it('lose no field: five PATCHes of five different fields at once all stay', async () => {
    const created = (await op().call('/stores/stamps/products', { body: { product: { title: 'Many' } } })).body.product;
    const patches = [
      { title: 'Many, renamed' },
      { vendor: 'Acme' },
      { product_type: 'Shoes' },
      { subtitle: 'Fast ones' },
      { images: [{ src: 'https://example.com/a.png', alt: 'A' }] },
    ];
    const answers = await Promise.all(
      patches.map((product) => op().call(`/stores/stamps/products/${created.id}`, { method: 'PATCH', body: { product } })),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    // An empty PATCH changes nothing but answers the product as stored.
    const after = (await op().call(`/stores/stamps/products/${created.id}`, { method: 'PATCH', body: { product: {} } })).body.product;
    expect(after).toMatchObject({ title: 'Many, renamed', vendor: 'Acme', product_type: 'Shoes', subtitle: 'Fast ones' });
    expect(after.images.map((i: { src: string }) => i.src)).toEqual(['https://example.com/a.png']);
    const latest = Math.max(...answers.map((a) => Date.parse(a.body.product.updated_at)));
    expect(Date.parse(after.updated_at)).toBeGreaterThan(latest);
  });
});

describe('stores (decisions §10)', () => {
  it('store a time zone in its IANA spelling', async () => {
    expect((await op().createStore('zone-case', { iana_timezone: 'asia/shanghai' })).iana_timezone).toBe('Asia/Shanghai');
    const r = await op().call('/stores/zone-case', { method: 'PATCH', body: { store: { iana_timezone: 'utc' } } });
    expect(r.body.store.iana_timezone).toBe('UTC');
  });

  it('take e-mail addresses that are e-mail addresses and names without control characters, on create and on PATCH (decisions §12.9)', async () => {
    const created = await op().call('/stores', {
      body: { store: { handle: 'mails', name: 'Shop\nName', email: 'not an address', customer_email: 'a@b@c' } },
    });
    expect(created.status).toBe(422);
    expect(created.body.errors).toBe(
      'name: must not hold control characters (such as line breaks or tabs); email: must be an e-mail address such as owner@example.com; ' +
        'customer_email: must be an e-mail address such as owner@example.com',
    );
    expect((await op().call('/stores/mails')).status).toBe(404);
    await op().createStore('mails', { email: 'owner@mails.example', customer_email: 'care+shop@mails.example' });
    for (const store of [{ name: 'Tab\tName' }, { email: 'owner' }, { customer_email: 'x@' }]) {
      const r = await op().call('/stores/mails', { method: 'PATCH', body: { store } });
      expect(r.status, JSON.stringify(store)).toBe(422);
    }
    const shop = await op().call('/stores/mails');
    expect(shop.body.store).toMatchObject({ name: 'Store mails', email: 'owner@mails.example', customer_email: 'care+shop@mails.example' });
  });
});

describe('apps (decisions §5, §10)', () => {
  it('an install must ask for at least one scope', async () => {
    await op().createStore('installs');
    const app = await op().call('/apps', { body: { app: { name: 'Custom', kind: 'custom', scopes: ['read_products'] } } });
    expect(app.status).toBe(201);
    const r = await op().call(`/stores/installs/apps/${app.body.app.id}/install`, { body: { scopes: [] } });
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe('scopes: must name at least one scope');
  });

  it("a merchant refresh is for private apps' tokens only", async () => {
    const custom = await op().call('/apps', { body: { app: { name: 'Custom two', kind: 'custom', scopes: ['read_products'] } } });
    // An approval gives an OAuth code, not an installation with a token: nothing to refresh here
    // (a custom app's token comes from OAuth and is refreshed there).
    await op().call(`/stores/installs/apps/${custom.body.app.id}/install`, { body: { scopes: ['read_products'] } });
    const r = await op().call(`/stores/installs/apps/${custom.body.app.id}/token/refresh`, { method: 'POST' });
    expect(r.status).toBe(404);
    expect(r.body.errors).toBe('App not installed on this store');
    const priv = await op().createPrivateApp('installs', ['read_products']);
    const refreshed = await op().call(`/stores/installs/apps/${priv.app.id}/token/refresh`, { method: 'POST' });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).not.toBe(priv.access_token);
  });
});

describe('product input (decisions §10)', () => {
  it('refuses an inventory quantity no integer column holds exactly', async () => {
    const r = await op().call('/stores/stamps/products', {
      body: { product: { title: 'Huge', variants: [{ inventory_quantity: 1e300 }] } },
    });
    expect(r.status).toBe(422);
    expect(r.body.errors).toMatch(/^product\.variants\[0\]\.inventory_quantity: /);
  });

  it('names the field at fault inside a bulk create', async () => {
    const r = await op().call('/stores/stamps/products', { body: { products: [{ title: 'ok' }, { title: 5 }] } });
    expect(r.status).toBe(422);
    expect(r.body.errors).toMatch(/^products\[1\]\.title: /);
  });

  it('refuses a handle over 255 characters on create and on PATCH (PostgreSQL answered 500), takes 255', async () => {
    const long = 'h'.repeat(255);
    const ok = await op().call('/stores/stamps/products', { body: { product: { title: 'Handled', handle: long } } });
    expect(ok.status).toBe(201);
    expect(ok.body.product.handle).toBe(long);
    const tooLong = await op().call('/stores/stamps/products', { body: { product: { title: 'Handled', handle: `${long}h` } } });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors).toBe('handle: is too long (maximum is 255 characters)');
    const bulk = await op().call('/stores/stamps/products', {
      body: { products: [{ title: 'a' }, { title: 'b', handle: 'x'.repeat(3000) }] },
    });
    expect(bulk.status).toBe(422);
    expect(bulk.body.errors).toBe('products[1].handle: is too long (maximum is 255 characters)');
    const patch = await op().call(`/stores/stamps/products/${ok.body.product.id}`, {
      method: 'PATCH',
      body: { product: { handle: 'y'.repeat(20_000) } },
    });
    expect(patch.status).toBe(422);
    expect(patch.body.errors).toBe('handle: is too long (maximum is 255 characters)');
  });

  it('refuses times no store can hold (before 1970, after 9999-12-30 UTC: PostgreSQL answered 500 and kept year 10000), and keeps the record usable', async () => {
    const range = 'must be between 1970-01-01T00:00:00Z and 9999-12-30T23:59:59Z';
    const ok = await op().call('/stores/stamps/products', {
      body: { product: { title: 'Timed', published_at: '1970-01-02T00:00:00+23:59' } },
    });
    expect(ok.status).toBe(201);
    const id = ok.body.product.id;
    for (const time of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00+14:00', '1969-12-31T23:59:59Z', '9999-12-31T23:00:00-01:00']) {
      const created = await op().call('/stores/stamps/products', { body: { product: { title: 'T', published_at: time } } });
      expect(`${created.status} ${created.body.errors}`, time).toBe(`422 published_at: ${range}`);
      const patched = await op().call(`/stores/stamps/products/${id}`, { method: 'PATCH', body: { product: { published_at: time } } });
      expect(`${patched.status} ${patched.body.errors}`, time).toBe(`422 published_at: ${range}`);
      const store = await op().call('/stores/stamps', { method: 'PATCH', body: { store: { plan_expires_at: time } } });
      expect(`${store.status} ${store.body.errors}`, time).toBe(`422 plan_expires_at: ${range}`);
    }
    expect((await op().call(`/stores/stamps/products/${id}`, { method: 'PATCH', body: { product: { title: 'Still' } } })).status).toBe(200);
    expect((await op().call('/stores/stamps')).status).toBe(200);
  });

  it('takes 1,000 values an option and refuses more: each value id is derived from its option, and two products never share one', async () => {
    const values = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    const over = await op().call('/stores/stamps/products', {
      body: { products: [{ title: 'Many', options: [{ name: 'N', values: values(1001, 'v') }] }] },
    });
    expect(over.status).toBe(422);
    expect(over.body.errors).toBe('products[0].options[0].values: is too long (maximum is 1000 values)');
    const made = await op().call('/stores/stamps/products', {
      body: {
        products: [
          { title: 'Most', options: [{ name: 'N', values: values(1000, 'v') }] },
          { title: 'Next', options: [{ name: 'M', values: ['a', 'b'] }] },
        ],
      },
    });
    expect(made.status).toBe(201);
    const ids = made.body.products.flatMap((p: { options: { option_values: { id: string }[] }[] }) =>
      p.options.flatMap((o) => o.option_values.map((v) => v.id)),
    );
    expect(ids).toHaveLength(1002);
    expect(new Set(ids).size).toBe(1002);
  });

  it('refuses product and products in one body rather than dropping one, and writes nothing', async () => {
    const r = await op().call('/stores/stamps/products', { body: { product: { title: 'One' }, products: [{ title: 'Two' }] } });
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe('body: send product (one) or products (up to 1,000), not both');
    const store = await t.db.prisma.store.findUniqueOrThrow({ where: { handle: 'stamps' } });
    expect(await t.db.prisma.product.count({ where: { storeId: store.id, title: { in: ['One', 'Two'] } } })).toBe(0);
  });
});

describe('apps (decisions §10)', () => {
  it('removes an app once when it is removed many times at once: one 200, the others 404 (PostgreSQL answered 500)', async () => {
    const created = await op().call('/apps', {
      body: { app: { name: 'Removed at once', kind: 'private', scopes: ['read_products'], store_handle: 'stamps' } },
    });
    expect(created.status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => op().call(`/stores/stamps/apps/${created.body.app.id}`, { method: 'DELETE' })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(9).fill(404)]);
    expect(answers.find((a) => a.status === 404)?.body.errors).toBe('App not installed on this store');
    expect((await call(`${t.origin}/admin/openapi/v20260901/products/products.json`, { token: created.body.access_token })).status).toBe(
      401,
    );
  });

  it('refreshes a token many times at once one after the other: past the 5 minutes exactly one of the new tokens works', async () => {
    const created = await op().call('/apps', {
      body: { app: { name: 'Refreshed at once', kind: 'private', scopes: ['read_products'], store_handle: 'stamps' } },
    });
    const refreshed = await Promise.all(
      Array.from({ length: 6 }, () => op().call(`/stores/stamps/apps/${created.body.app.id}/token/refresh`, { body: {} })),
    );
    expect(refreshed.map((r) => r.status)).toEqual(Array(6).fill(200));
    await op().advanceClock(301);
    const works = async (token: string) =>
      (await call(`${t.origin}/admin/openapi/v20260901/products/products.json?limit=1`, { token })).status === 200;
    expect(await works(created.body.access_token)).toBe(false);
    const live = [];
    for (const r of refreshed) if (await works(r.body.access_token)) live.push(r.body.access_token);
    expect(live).toHaveLength(1);
  });

  it('answers a refresh racing the removal of its app with 200 or 404, never 500, and leaves no token working', async () => {
    const created = await op().call('/apps', {
      body: { app: { name: 'Refreshed while removed', kind: 'private', scopes: ['read_products'], store_handle: 'stamps' } },
    });
    const id = created.body.app.id;
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, () => op().call(`/stores/stamps/apps/${id}/token/refresh`, { body: {} })),
      op().call(`/stores/stamps/apps/${id}`, { method: 'DELETE' }),
    ]);
    expect(answers.at(-1)!.status).toBe(200);
    expect(answers.slice(0, -1).every((a) => a.status === 200 || a.status === 404)).toBe(true);
    for (const token of [
      created.body.access_token,
      ...answers
        .slice(0, -1)
        .map((a) => a.body.access_token)
        .filter(Boolean),
    ]) {
      expect((await call(`${t.origin}/admin/openapi/v20260901/products/products.json?limit=1`, { token })).status).toBe(401);
    }
  });

  it('refuses a redirect URL with a fragment (OAuth 2.0 forbids one)', async () => {
    const r = await op().call('/apps', {
      body: { app: { name: 'Fragment', kind: 'public', scopes: ['read_products'], redirect_urls: ['https://a.example/cb#x'] } },
    });
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe('redirect_urls[0]: must not include a fragment (#)');
  });
});

describe('the manual clock under concurrent moves (decisions §10)', () => {
  it('counts every move of several at once', async () => {
    const before = Date.parse((await op().call('/clock')).body.now);
    await Promise.all(Array.from({ length: 10 }, () => op().advanceClock(60)));
    expect(Date.parse((await op().call('/clock')).body.now) - before).toBe(600_000);
  });
});
