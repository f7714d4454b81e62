import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyWebhookSignature } from '@platform/domain';
import { describe, expect, it } from 'vitest';
import { connectProxy } from './connect-proxy';
import {
  advanceClock,
  closedAfterEach,
  deliveries,
  fileDatabase,
  inProcessSender,
  receiver,
  setClock,
  spawnSender,
  storeAndApp,
  subscription,
  waitFor,
} from './helpers';

// PLATFORM_WEBHOOK_PROXY: deliveries through a real HTTP CONNECT proxy on loopback (connect-proxy.ts),
// the way platform teams fence webhooks in production. The proxy resolves the names; the sender
// refuses what it can judge without resolving (IP literals, localhost names); the proxy is the fence.

const fixtures = join(__dirname, 'fixtures');
// A receiver certificate for hooks.example.test: a name only the proxy resolves (to 127.0.0.1).
const tls = { cert: readFileSync(join(fixtures, 'proxied-cert.pem')), key: readFileSync(join(fixtures, 'proxied-key.pem')) };
const NAME = 'hooks.example.test';

const database = fileDatabase(async (db) => {
  await setClock(db, new Date('2026-11-22T04:05:01.000Z'));
});
const track = closedAfterEach();
const strict = { PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'false' };

const deliveryOf = (webhookId: string) => database.db.prisma.webhookDelivery.findFirstOrThrow({ where: { webhookId } });

/**
 * What the delivery's attempts came to: null once delivered, else the last attempt's error. The 1 s
 * to connect covers the proxy, its CONNECT answer and the receiver's TLS handshake through the
 * tunnel; on a loaded shared machine (load average 20 seen) a first connection can take longer, so
 * an attempt that failed only for that is sent again (the service clock moved past its retry).
 */
async function outcomeOf(webhookId: string): Promise<string | null> {
  return waitFor(
    async () => {
      const d = await deliveryOf(webhookId);
      if (d.status === 'delivered') return { error: null };
      if (d.attempts === 0) return undefined;
      if (d.lastError?.startsWith('connect timeout')) {
        await advanceClock(database.db, 60);
        return undefined;
      }
      return { error: d.lastError };
    },
    'an attempt that connected',
    120_000,
    100,
  ).then((o) => o.error);
}

describe('delivery through an egress proxy (PLATFORM_WEBHOOK_PROXY)', () => {
  it('tunnels each connection with CONNECT, with the proxy credentials, TLS checked end to end, and the receiver gets the signed bodies', async () => {
    const r = track(await receiver(undefined, 0, '127.0.0.1', tls));
    const proxy = track(await connectProxy({ hosts: { [NAME]: '127.0.0.1' } }));
    const f = await storeAndApp(database.db);
    const sub = await subscription(database.db, f, `https://${NAME}:${r.port}/in`);
    const ids = await deliveries(database.db, f, sub, 3);
    const proxyUrl = proxy.url.replace('http://', 'http://sender:s%40cret@');
    await track(inProcessSender(database.db, { ...strict, PLATFORM_WEBHOOK_PROXY: proxyUrl }, { tls: { ca: tls.cert } }));
    for (const id of ids) expect(await outcomeOf(id)).toBeNull();
    expect(r.received.map((x) => x.webhookId).sort()).toEqual([...ids].sort());
    for (const got of r.received) {
      expect(got.path).toBe('/in');
      expect(got.headers.host).toBe(`${NAME}:${r.port}`);
      expect(verifyWebhookSignature(got.body, String(got.headers['x-platform-hmac-sha256']), f.secret)).toBe(true);
    }
    // Every connection to the receiver was a tunnel the proxy opened for the name (it resolved it).
    expect(proxy.asked.length).toBeGreaterThanOrEqual(1);
    expect(new Set(proxy.asked)).toEqual(new Set([`${NAME}:${r.port}`]));
    expect(new Set(proxy.authorizations)).toEqual(new Set([`Basic ${Buffer.from('sender:s@cret').toString('base64')}`]));
  });

  it('the proxy is the fence: a CONNECT it refuses fails the attempt; private IP literals and localhost names never reach it', async () => {
    const r = track(await receiver(undefined, 0, '127.0.0.1', tls));
    const proxy = track(await connectProxy({ hosts: { [NAME]: '127.0.0.1' }, allow: (host) => host === NAME }));
    const f = await storeAndApp(database.db);
    const [fenced] = await deliveries(database.db, f, await subscription(database.db, f, 'https://internal.example.test/x'), 1);
    const [literal] = await deliveries(database.db, f, await subscription(database.db, f, 'https://10.1.2.3/x'), 1);
    const [local] = await deliveries(database.db, f, await subscription(database.db, f, `https://localhost:${r.port}/x`), 1);
    await track(inProcessSender(database.db, { ...strict, PLATFORM_WEBHOOK_PROXY: proxy.url }, { tls: { ca: tls.cert } }));
    expect(await outcomeOf(fenced!)).toBe('proxy refused the tunnel: HTTP 403');
    expect(await outcomeOf(literal!)).toBe(
      'refused: 10.1.2.3 is a private, loopback or link-local address (set PLATFORM_WEBHOOK_ALLOW_PRIVATE=true to allow it)',
    );
    expect(await outcomeOf(local!)).toBe(
      'refused: localhost names the machine itself (set PLATFORM_WEBHOOK_ALLOW_PRIVATE=true to allow it)',
    );
    expect(new Set(proxy.asked)).toEqual(new Set(['internal.example.test:443']));
    expect(r.received).toHaveLength(0);
  });

  it('a proxy that never answers the CONNECT fails the attempt at the 1 s connect limit', async () => {
    const proxy = track(await connectProxy({ silent: true }));
    const f = await storeAndApp(database.db);
    const [id] = await deliveries(database.db, f, await subscription(database.db, f, `https://${NAME}/x`), 1);
    await track(inProcessSender(database.db, { ...strict, PLATFORM_WEBHOOK_PROXY: proxy.url }));
    await waitFor(async () => (await deliveryOf(id!)).attempts === 1, 'the attempt');
    expect((await deliveryOf(id!)).lastError).toBe('connect timeout: no connection within 1 s');
    expect(proxy.asked).toEqual([`${NAME}:443`]);
  });

  it('the sender process (dist/main.js) reads PLATFORM_WEBHOOK_PROXY and delivers through it', async () => {
    const r = track(await receiver());
    const proxy = track(await connectProxy());
    const f = await storeAndApp(database.db);
    const [id] = await deliveries(database.db, f, await subscription(database.db, f, `${r.url}/p`), 1);
    const sender = spawnSender({ DATABASE_URL: database.url, PLATFORM_CLOCK: 'manual', PLATFORM_WEBHOOK_PROXY: proxy.url });
    try {
      expect(await outcomeOf(id!)).toBeNull();
    } finally {
      sender.child.kill('SIGTERM');
      await sender.exited;
    }
    expect(r.received.map((x) => x.webhookId)).toEqual([id]);
    expect(new Set(proxy.asked)).toEqual(new Set([`127.0.0.1:${r.port}`]));
  });
});
