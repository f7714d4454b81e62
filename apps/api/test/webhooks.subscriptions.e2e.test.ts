import { ZWebhook } from '@platform/contract';
import { describe, expect, it } from 'vitest';
import { call, operator, startPlatform, storeWithApp, VERSION } from './harness';
import { ALL, hook, hooksPlatform } from './webhooks.helpers';

const hooks = hooksPlatform();
const op = () => operator(hooks.t);

describe('webhook subscriptions (decisions §11.1)', () => {
  it('creates (201), reads, updates and deletes (200 {}) a subscription', async () => {
    const created = await hooks.shop.admin('/webhooks.json', { body: hook({ address: 'https://hooks.example.com/crud' }) });
    expect(created.status).toBe(201);
    const webhook = ZWebhook.parse(created.body.webhook);
    expect(webhook).toMatchObject({
      topic: 'inventory_items/update',
      address: 'https://hooks.example.com/crud',
      api_version: VERSION,
      status: 'enabled',
    });
    expect(Object.keys(created.body.webhook).sort()).toEqual([
      'address',
      'api_version',
      'created_at',
      'id',
      'status',
      'topic',
      'updated_at',
    ]);

    const read = await hooks.shop.admin(`/webhooks/${webhook.id}.json`);
    expect(read.status).toBe(200);
    expect(read.body.webhook).toEqual(created.body.webhook);

    await op().advanceClock(5);
    const updated = await hooks.shop.admin(`/webhooks/${webhook.id}.json`, {
      method: 'PUT',
      body: { webhook: { address: 'https://hooks.example.com/moved', api_version: 'v20260601', status: 'disabled' } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.webhook).toMatchObject({
      id: webhook.id,
      address: 'https://hooks.example.com/moved',
      api_version: 'v20260601',
      status: 'disabled',
    });
    expect(updated.body.webhook.updated_at).not.toBe(webhook.updated_at);
    expect(updated.body.webhook.created_at).toBe(webhook.created_at);

    const removed = await hooks.shop.admin(`/webhooks/${webhook.id}.json`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({});
    expect((await hooks.shop.admin(`/webhooks/${webhook.id}.json`)).status).toBe(404);
    expect((await hooks.shop.admin(`/webhooks/${webhook.id}.json`, { method: 'DELETE' })).status).toBe(404);
  });

  it('answers the same at /{id}/webhooks.json', async () => {
    const created = await hooks.shop.admin('/webhooks.json', {
      body: hook({ address: 'https://hooks.example.com/alias', topic: 'fulfillment_order/released' }),
    });
    const id = created.body.webhook.id as string;
    expect((await hooks.shop.admin(`/${id}/webhooks.json`)).body.webhook).toEqual(created.body.webhook);
    const updated = await hooks.shop.admin(`/${id}/webhooks.json`, { method: 'PUT', body: { webhook: { status: 'disabled' } } });
    expect(updated.status).toBe(200);
    expect(updated.body.webhook.status).toBe('disabled');
    expect((await hooks.shop.admin(`/webhooks/${id}.json`)).body.webhook.status).toBe('disabled');
    expect((await hooks.shop.admin(`/${id}/webhooks.json`, { method: 'DELETE' })).status).toBe(200);
    expect((await hooks.shop.admin(`/${id}/webhooks.json`)).status).toBe(404);
    expect((await hooks.shop.admin('/abc/webhooks.json')).status).toBe(404);
    expect((await hooks.shop.admin('/webhooks/abc.json')).status).toBe(404);
    expect((await hooks.shop.admin('/webhooks/99999999999999999999999.json')).status).toBe(404);
  });

  it('stores the address in its normal form, and defaults api_version to the served version', async () => {
    const r = await hooks.shop.admin('/webhooks.json', { body: hook({ address: 'HTTPS://Hooks.Example.COM:443/Path?q=1' }) });
    expect(r.status).toBe(201);
    expect(r.body.webhook.address).toBe('https://hooks.example.com/Path?q=1');
    // A retired version is served by the oldest supported one (decisions §2.4): that is the default.
    const retired = await call(`${hooks.t.origin}/admin/openapi/v20200101/webhooks.json`, {
      token: hooks.shop.token,
      body: hook({ address: 'https://hooks.example.com/retired' }),
    });
    expect(retired.status).toBe(201);
    expect(retired.body.webhook.api_version).toBe(retired.headers.get('x-platform-api-version'));
    expect(retired.body.webhook.api_version).not.toBe('v20200101');
  });

  it('re-enabling a disabled subscription clears its failure streak and reason (decisions §11.5)', async () => {
    const r = await hooks.shop.admin('/webhooks.json', { body: hook({ address: 'https://hooks.example.com/streak' }) });
    const id = BigInt(r.body.webhook.id);
    await hooks.t.db.prisma.webhookSubscription.update({
      where: { id },
      data: { status: 'disabled', disabledReason: 'failures', failureStreak: 8 },
    });
    expect((await hooks.shop.admin(`/webhooks/${id}.json`)).body.webhook.status).toBe('disabled');
    const enabled = await hooks.shop.admin(`/webhooks/${id}.json`, { method: 'PUT', body: { webhook: { status: 'enabled' } } });
    expect(enabled.body.webhook.status).toBe('enabled');
    const row = await hooks.t.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: 'enabled', failureStreak: 0, disabledReason: null });
  });
});

describe('concurrent PUTs of one subscription', () => {
  it('apply one after the other: no field undone, each answer its own write with its own updated_at', async () => {
    const created = await hooks.shop.admin('/webhooks.json', { body: hook({ address: 'https://hooks.example.com/busy' }) });
    const id = created.body.webhook.id as string;
    const bodies = [{ address: 'https://hooks.example.com/busy-moved' }, { api_version: 'v20260601' }, { status: 'disabled' }];
    const answers = await Promise.all(
      bodies.map((webhook) => hooks.shop.admin(`/webhooks/${id}.json`, { method: 'PUT', body: { webhook } })),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    answers.forEach((a, i) => expect(a.body.webhook).toMatchObject(bodies[i]!));
    expect(new Set(answers.map((a) => a.body.webhook.updated_at)).size).toBe(3);
    const after = (await hooks.shop.admin(`/webhooks/${id}.json`)).body.webhook;
    expect(after).toMatchObject({ address: 'https://hooks.example.com/busy-moved', api_version: 'v20260601', status: 'disabled' });
  });
});

describe('one subscription per (app, store, topic, address)', () => {
  it('refuses a duplicate with 422, also one spelled differently', async () => {
    expect((await hooks.shop.admin('/webhooks.json', { body: hook({ address: 'https://dup.example.com/x' }) })).status).toBe(201);
    const again = await hooks.shop.admin('/webhooks.json', { body: hook({ address: 'https://DUP.example.com:443/x' }) });
    expect(again.status).toBe(422);
    expect(again.body.errors).toMatch(/^address: has already been taken/);
    // Another topic at the same address is another subscription.
    expect(
      (
        await hooks.shop.admin('/webhooks.json', {
          body: hook({ address: 'https://dup.example.com/x', topic: 'fulfillment_order/released' }),
        })
      ).status,
    ).toBe(201);
  });

  it('refuses an update onto an existing subscription with 422', async () => {
    await hooks.shop.admin('/webhooks.json', { body: hook({ address: 'https://clash.example.com/a' }) });
    const b = await hooks.shop.admin('/webhooks.json', { body: hook({ address: 'https://clash.example.com/b' }) });
    const r = await hooks.shop.admin(`/webhooks/${b.body.webhook.id}.json`, {
      method: 'PUT',
      body: { webhook: { address: 'https://clash.example.com/a' } },
    });
    expect(r.status).toBe(422);
    expect(r.body.errors).toMatch(/has already been taken/);
  });

  it('gives exactly one 201 for concurrent duplicates (the unique index decides)', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => hooks.shop.admin('/webhooks.json', { body: hook({ address: 'https://race.example.com/hook' }) })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 422, 422, 422, 422, 422, 422, 422]);
    expect(await hooks.t.db.prisma.webhookSubscription.count({ where: { address: 'https://race.example.com/hook' } })).toBe(1);
  });

  it('refuses the 51st subscription of an app on a store with 422, also when created at once (decisions §11.7)', async () => {
    const mine = await storeWithApp(hooks.t, 'many-hooks', ALL);
    const create = (n: number) => mine.admin('/webhooks.json', { body: hook({ address: `https://many.example.com/h${n}` }) });
    for (let n = 0; n < 46; n++) expect((await create(n)).status).toBe(201);
    // Six at once for the last four places: exactly four get in (the count is taken under a lock).
    const racing = await Promise.all([46, 47, 48, 49, 50, 51].map(create));
    expect(racing.map((a) => a.status).sort()).toEqual([201, 201, 201, 201, 422, 422]);
    const refused = racing.find((a) => a.status === 422)!;
    expect(refused.body.errors).toBe(
      'webhook: this app already has 50 subscriptions on this store, the most an app may have; delete one to add another',
    );
    expect(refused.headers.get('traceid')).toBeTruthy();
    expect(await hooks.t.db.prisma.webhookSubscription.count({ where: { appId: BigInt(mine.app.app.id) } })).toBe(50);
    // Disabled ones count too; another app on the same store is not held to this app's count.
    const first = (await mine.admin('/webhooks.json?limit=1')).body.webhooks[0] as { id: string };
    expect((await mine.admin(`/webhooks/${first.id}.json`, { method: 'PUT', body: { webhook: { status: 'disabled' } } })).status).toBe(200);
    expect((await create(99)).status).toBe(422);
    const other = await op().createPrivateApp('many-hooks', ALL);
    const theirs = await call(`${hooks.t.origin}/admin/openapi/${VERSION}/webhooks.json`, {
      token: other.access_token,
      body: hook({ address: 'https://many.example.com/h1' }),
    });
    expect(theirs.status).toBe(201);
    // Deleting one makes room for one.
    expect((await mine.admin(`/webhooks/${first.id}.json`, { method: 'DELETE' })).status).toBe(200);
    expect((await create(99)).status).toBe(201);
    expect((await create(100)).status).toBe(422);
  });

  it('lets two apps of one store subscribe the same address', async () => {
    const other = await op().createPrivateApp('hooks', ALL);
    const mine = await hooks.shop.admin('/webhooks.json', { body: hook({ address: 'https://shared.example.com/h' }) });
    const theirs = await call(`${hooks.t.origin}/admin/openapi/${VERSION}/webhooks.json`, {
      token: other.access_token,
      body: hook({ address: 'https://shared.example.com/h' }),
    });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
  });
});

describe('addresses (decisions §11.2)', () => {
  it.each([
    ['http://hooks.example.com/in', /https/],
    ['ftp://hooks.example.com/in', /https/],
    ['hooks.example.com/in', /https/],
    ['/relative', /https/],
    ['https://user:secret@hooks.example.com/', /user name or password/],
    ['https://user@hooks.example.com/', /user name or password/],
    ['https://hooks.example.com/in#frag', /fragment/],
    ['https://hooks.example.com/a b', /spaces/],
    [`https://hooks.example.com/${'a'.repeat(2100)}`, /too long/],
    ['', /blank/],
    ['https://localhost/in', /localhost/],
    ['https://hooks.localhost/in', /localhost/],
    ['https://127.0.0.1/in', /private/],
    ['https://2130706433/in', /private/],
    ['https://0x7f.0.0.1/in', /private/],
    ['https://0177.0.0.1/in', /private/],
    ['https://10.1.2.3/in', /private/],
    ['https://172.16.0.1/in', /private/],
    ['https://192.168.1.1/in', /private/],
    ['https://169.254.169.254/latest/meta-data', /private/],
    ['https://100.64.0.1/in', /private/],
    ['https://0.0.0.0/in', /private/],
    ['https://224.0.0.1/in', /private/],
    ['https://[::1]/in', /private/],
    ['https://[::]/in', /private/],
    ['https://[::ffff:127.0.0.1]/in', /private/],
    ['https://[::ffff:a9fe:a9fe]/in', /private/],
    ['https://[fe80::1]/in', /private/],
    ['https://[fd12:3456::1]/in', /private/],
    ['https://[ff02::1]/in', /private/],
  ])('refuses %s with 422', async (address, message) => {
    const r = await hooks.shop.admin('/webhooks.json', { body: hook({ address }) });
    expect(r.status).toBe(422);
    expect(r.body.errors).toMatch(/^address: /);
    expect(r.body.errors).toMatch(message);
  });

  it('refuses a non-string address or topic with 422', async () => {
    for (const body of [
      hook({ address: 5 }),
      hook({ topic: ['inventory_items/update'] }),
      { webhook: 'x' },
      {},
      { webhook: { address: 'https://a.example.com/' } },
    ]) {
      const r = await hooks.shop.admin('/webhooks.json', { body });
      expect(r.status, JSON.stringify(body)).toBe(422);
    }
  });

  it('accepts public IP literals', async () => {
    for (const address of ['https://8.8.8.8/h', 'https://[2606:4700:4700::1111]/h']) {
      expect((await hooks.shop.admin('/webhooks.json', { body: hook({ address }) })).status).toBe(201);
    }
  });

  it('takes http:// and private targets with PLATFORM_WEBHOOK_ALLOW_PRIVATE=true', async () => {
    const dev = await startPlatform({ PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'true', PLATFORM_RATE_LIMIT_CAPACITY: '100000' });
    try {
      const s = await storeWithApp(dev, 'devhooks', ALL);
      for (const address of ['http://127.0.0.1:9999/in', 'https://localhost/in', 'http://[::1]:8080/x', 'http://10.0.0.1/']) {
        const r = await s.admin('/webhooks.json', { body: hook({ address }) });
        expect(r.status, address).toBe(201);
      }
      // Still never user info or fragments.
      expect((await s.admin('/webhooks.json', { body: hook({ address: 'http://u:p@127.0.0.1/' }) })).status).toBe(422);
    } finally {
      await dev.close();
    }
  });
});

describe('topics, versions and statuses', () => {
  it('refuses an unknown topic, naming the supported ones', async () => {
    const r = await hooks.shop.admin('/webhooks.json', { body: hook({ topic: 'orders/create' }) });
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe('topic: is not a supported topic (inventory_items/update, fulfillment_order/released)');
  });

  it('refuses an api_version that is not supported, reporting every problem at once', async () => {
    for (const api_version of ['v20260415', 'v20991201', '2026-09-01', 'v20200101']) {
      const r = await hooks.shop.admin('/webhooks.json', { body: hook({ api_version }) });
      expect(r.status).toBe(422);
      expect(r.body.errors).toMatch(/^api_version: '.*' is not a supported version \(v\d{8}/);
    }
    const both = await hooks.shop.admin('/webhooks.json', { body: hook({ api_version: 'v1', address: 'http://x.example.com/' }) });
    expect(both.body.errors).toMatch(/^address: .*; api_version: /);
    const ok = await hooks.shop.admin('/webhooks.json', { body: hook({ api_version: 'v20260301', address: 'https://v.example.com/' }) });
    expect(ok.status).toBe(201);
    expect(ok.body.webhook.api_version).toBe('v20260301');
  });

  it('answers huge inputs briefly, echoing none of them whole', async () => {
    const huge = 'x'.repeat(1_000_000);
    for (const over of [{ api_version: huge }, { topic: huge }, { address: `https://a.example.com/${huge}` }, { status: huge }]) {
      const r = await hooks.shop.admin('/webhooks.json', { body: hook(over) });
      expect(r.status).toBe(422);
      expect(r.text.length).toBeLessThan(600);
    }
  });

  it('takes status enabled or disabled only', async () => {
    const r = await hooks.shop.admin('/webhooks.json', { body: hook({ status: 'paused' }) });
    expect(r.status).toBe(422);
    expect(r.body.errors).toBe('status: is not included in the list (enabled, disabled)');
    const disabled = await hooks.shop.admin('/webhooks.json', { body: hook({ status: 'disabled', address: 'https://off.example.com/' }) });
    expect(disabled.body.webhook.status).toBe('disabled');
  });

  it('checks a PUT the same way', async () => {
    const r = await hooks.shop.admin('/webhooks.json', { body: hook({ address: 'https://put.example.com/' }) });
    const id = r.body.webhook.id as string;
    for (const webhook of [{ topic: 'nope' }, { address: 'https://127.0.0.1/' }, { api_version: 'v1' }, { status: 'gone' }]) {
      const u = await hooks.shop.admin(`/webhooks/${id}.json`, { method: 'PUT', body: { webhook } });
      expect(u.status, JSON.stringify(webhook)).toBe(422);
    }
    expect((await hooks.shop.admin(`/webhooks/${id}.json`)).body.webhook).toEqual(r.body.webhook);
  });
});
