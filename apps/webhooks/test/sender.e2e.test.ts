import { MAX_RETRY_AFTER_MS, verifyWebhookSignature } from '@platform/domain';
import { describe, expect, it } from 'vitest';
import { RESPONSE_BODY_LIMIT } from '../src/deliver';
import {
  advanceClock,
  clockNow,
  deliveries,
  closedAfterEach,
  fileDatabase,
  inProcessSender,
  receiver,
  setClock,
  sleep,
  storeAndApp,
  subscription,
  waitFor,
  type Receiver,
} from './helpers';

const database = fileDatabase(async (db) => {
  await setClock(db, new Date('2026-11-22T04:05:01.000Z'));
});
const track = closedAfterEach();

const attemptsOf = (webhookId: string) =>
  database.db.prisma.webhookDelivery
    .findFirstOrThrow({ where: { webhookId } })
    .then((d) => database.db.prisma.webhookAttempt.findMany({ where: { deliveryId: d.id }, orderBy: { number: 'asc' } }));
const deliveryOf = (webhookId: string) => database.db.prisma.webhookDelivery.findFirstOrThrow({ where: { webhookId } });

describe('webhook sender (decisions §11)', () => {
  it('sends the exact body bytes with the seven headers, X-Platform-Triggered-At in the store zone and a hex HMAC (§11.3)', async () => {
    const r = track(await receiver());
    const f = await storeAndApp(database.db, 'Asia/Shanghai');
    const sub = await subscription(database.db, f, `${r.url}/hooks`);
    const body = '{"inventory_item":{"id":"42","sku":"Grüße ✓","tracked":true}}';
    const triggeredAt = new Date('2026-11-22T04:05:01.000Z');
    const [webhookId] = await deliveries(database.db, f, sub, 1, { body, triggeredAt });
    await track(inProcessSender(database.db));
    await waitFor(() => r.received.length === 1, 'the delivery');
    const got = r.received[0]!;
    expect(got.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(got.path).toBe('/hooks');
    const h = got.headers;
    expect(h['content-type']).toBe('application/json');
    expect(h['x-platform-topic']).toBe('inventory_items/update');
    expect(h['x-platform-shop-domain']).toBe(`${f.handle}.localhost`);
    expect(h['x-platform-shop-id']).toBe(f.storeId.toString());
    expect(h['x-platform-merchant-id']).toBe(f.merchantId.toString());
    expect(h['x-platform-api-version']).toBe('v20260901');
    expect(h['x-platform-webhook-id']).toBe(webhookId);
    expect(h['x-platform-triggered-at']).toBe('2026-11-22T12:05:01+08:00');
    expect(h['x-platform-hmac-sha256']).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(got.body, String(h['x-platform-hmac-sha256']), f.secret)).toBe(true);
    expect(verifyWebhookSignature(got.body, String(h['x-platform-hmac-sha256']), 'another-secret')).toBe(false);
    await waitFor(async () => (await deliveryOf(webhookId!)).status === 'delivered', 'delivered');
    const d = await deliveryOf(webhookId!);
    expect(d).toMatchObject({ attempts: 1, leaseOwner: null, leaseUntil: null, lastError: null });
    expect(d.deliveredAt?.toISOString()).toBe((await clockNow(database.db)).toISOString());
    const attempts = await attemptsOf(webhookId!);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ number: 1, responseStatus: 200, error: null, responseBody: 'ok' });
  });

  it('retries a 500 on the schedule of the service clock with the same X-Platform-Webhook-Id, then delivers (§11.5)', async () => {
    let answer = 500;
    const r = track(await receiver((_q, res) => res.writeHead(answer).end(answer === 500 ? 'boom' : 'fine')));
    const f = await storeAndApp(database.db);
    const sub = await subscription(database.db, f, r.url);
    const start = await clockNow(database.db);
    const [webhookId] = await deliveries(database.db, f, sub, 1);
    await track(inProcessSender(database.db));
    await waitFor(async () => (await attemptsOf(webhookId!)).length === 1, 'the first attempt');
    const after1 = await deliveryOf(webhookId!);
    expect(after1.status).toBe('pending');
    expect(after1.lastError).toBe('HTTP 500');
    // 10 s +/-20 % after the failed attempt, on the service clock
    const wait = after1.nextAttemptAt.getTime() - start.getTime();
    expect(wait).toBeGreaterThanOrEqual(8000);
    expect(wait).toBeLessThanOrEqual(12_000);
    // Not due yet: nothing more is sent while the clock stands still.
    await sleep(300);
    expect(r.received).toHaveLength(1);
    answer = 200;
    await advanceClock(database.db, 12);
    await waitFor(async () => (await deliveryOf(webhookId!)).status === 'delivered', 'the retry');
    expect(r.received.map((x) => x.webhookId)).toEqual([webhookId, webhookId]);
    const attempts = await attemptsOf(webhookId!);
    expect(attempts.map((a) => [a.number, a.responseStatus, a.error, a.responseBody])).toEqual([
      [1, 500, 'HTTP 500', 'boom'],
      [2, 200, null, 'fine'],
    ]);
  });

  it('honours Retry-After in seconds and as an HTTP date, capped at 2 hours (§11.5)', async () => {
    const afters = ['120', '', '999999'];
    let i = 0;
    const r = track(
      await receiver((_q, res) => {
        const value = afters[i++] ?? '';
        res.writeHead(503, value ? { 'retry-after': value } : {}).end();
      }),
    );
    const f = await storeAndApp(database.db);
    const sub = await subscription(database.db, f, r.url);
    const [webhookId] = await deliveries(database.db, f, sub, 1);
    const t0 = await clockNow(database.db);
    afters[1] = new Date(t0.getTime() + 120_000 + 300_000).toUTCString(); // 5 min after the retry
    await track(inProcessSender(database.db));
    await waitFor(async () => (await attemptsOf(webhookId!)).length === 1, 'the first attempt');
    expect((await deliveryOf(webhookId!)).nextAttemptAt.getTime() - t0.getTime()).toBe(120_000);
    await advanceClock(database.db, 120);
    await waitFor(async () => (await attemptsOf(webhookId!)).length === 2, 'the second attempt');
    expect((await deliveryOf(webhookId!)).nextAttemptAt.getTime() - t0.getTime()).toBe(420_000);
    await advanceClock(database.db, 300);
    await waitFor(async () => (await attemptsOf(webhookId!)).length === 3, 'the third attempt');
    expect((await deliveryOf(webhookId!)).nextAttemptAt.getTime() - t0.getTime()).toBe(420_000 + MAX_RETRY_AFTER_MS);
  });

  it('waits at least 10 s after Retry-After: 0 or a date in the past, on the service clock (§11.5)', async () => {
    const pastDate = 'Sun, 01 Nov 2026 00:00:00 GMT';
    const afters = ['0', pastDate];
    let i = 0;
    const r = track(await receiver((_q, res) => res.writeHead(429, { 'retry-after': afters[Math.min(i++, 1)]! }).end()));
    const f = await storeAndApp(database.db);
    const sub = await subscription(database.db, f, r.url);
    const [webhookId] = await deliveries(database.db, f, sub, 1);
    const t0 = await clockNow(database.db);
    await track(inProcessSender(database.db));
    await waitFor(async () => (await attemptsOf(webhookId!)).length === 1, 'the first attempt');
    // The clock stands still: the receiver must not see the delivery again (it did, 8 more times, when 0 meant "now").
    await sleep(500);
    expect(r.received).toHaveLength(1);
    expect((await deliveryOf(webhookId!)).nextAttemptAt.getTime() - t0.getTime()).toBe(10_000);
    await advanceClock(database.db, 10);
    await waitFor(async () => (await attemptsOf(webhookId!)).length === 2, 'the second attempt');
    await sleep(500);
    expect(r.received).toHaveLength(2);
    expect((await deliveryOf(webhookId!)).nextAttemptAt.getTime() - t0.getTime()).toBe(20_000);
  });

  it('fails without an attempt the deliveries of a subscription deleted meanwhile, and sends the others of the same claim', async () => {
    const r = track(await receiver());
    const f = await storeAndApp(database.db, 'Asia/Shanghai');
    const kept = await subscription(database.db, f, `${r.url}/kept`);
    const gone = await subscription(database.db, f, `${r.url}/gone`);
    const sent = await deliveries(database.db, f, kept, 3);
    const orphaned = await deliveries(database.db, f, gone, 2);
    await database.db.query('DELETE FROM webhook_subscriptions WHERE id = ?', [gone.id]);
    await track(inProcessSender(database.db));
    await waitFor(async () => (await Promise.all(sent.map(deliveryOf))).every((d) => d.status === 'delivered'), 'the kept ones');
    for (const id of orphaned) await waitFor(async () => (await deliveryOf(id)).status === 'failed', 'the orphaned ones');
    for (const id of orphaned) expect(await deliveryOf(id)).toMatchObject({ lastError: 'subscription deleted', attempts: 0 });
    expect(r.received.map((x) => x.path).sort()).toEqual(['/kept', '/kept', '/kept']);
    for (const got of r.received) {
      expect(got.headers['x-platform-shop-domain']).toBe(`${f.handle}.localhost`);
      expect(verifyWebhookSignature(got.body, String(got.headers['x-platform-hmac-sha256']), f.secret)).toBe(true);
    }
  });

  it('disables the subscription on 410 Gone and fails its other pending deliveries (§11.5)', async () => {
    const r = track(await receiver((_q, res) => res.writeHead(410).end('gone')));
    const f = await storeAndApp(database.db);
    const sub = await subscription(database.db, f, r.url);
    const [first] = await deliveries(database.db, f, sub, 1);
    const later = await deliveries(database.db, f, sub, 3, { nextAttemptAt: new Date((await clockNow(database.db)).getTime() + 3600_000) });
    await track(inProcessSender(database.db));
    await waitFor(async () => (await deliveryOf(first!)).status === 'failed', 'the 410');
    const s = await database.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: sub.id } });
    expect(s).toMatchObject({ status: 'disabled', disabledReason: 'gone' });
    for (const id of later)
      expect(await deliveryOf(id)).toMatchObject({ status: 'failed', lastError: 'subscription disabled', attempts: 0 });
    expect(r.received).toHaveLength(1);
  });

  it('disables the subscription after 8 failed deliveries in a row; a delivered one resets the streak (§11.5)', async () => {
    let answer = 500;
    const r = track(await receiver((_q, res) => res.writeHead(answer).end()));
    const f = await storeAndApp(database.db);
    const sub = await subscription(database.db, f, r.url);
    // Deliveries on their ninth and last attempt: each failure fails the delivery.
    const seven = await deliveries(database.db, f, sub, 7, { attempts: 8 });
    const sender = await track(inProcessSender(database.db));
    await waitFor(
      async () => (await database.db.prisma.webhookDelivery.count({ where: { webhookId: { in: seven }, status: 'failed' } })) === 7,
      'seven failures',
    );
    expect((await database.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: sub.id } })).failureStreak).toBe(7);
    answer = 200;
    const [ok] = await deliveries(database.db, f, sub, 1);
    await waitFor(async () => (await deliveryOf(ok!)).status === 'delivered', 'a success');
    expect((await database.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: sub.id } })).failureStreak).toBe(0);
    answer = 500;
    const eight = await deliveries(database.db, f, sub, 8, { attempts: 8 });
    await waitFor(
      async () => (await database.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: sub.id } })).status === 'disabled',
      'disabled',
    );
    const s = await database.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: sub.id } });
    expect(s).toMatchObject({ disabledReason: 'failures', failureStreak: 8 });
    expect(await database.db.prisma.webhookDelivery.count({ where: { webhookId: { in: eight }, status: 'failed' } })).toBe(8);
    // A delivery written for a disabled subscription is failed without an attempt.
    const before = r.received.length;
    const [late] = await deliveries(database.db, f, sub, 1);
    await waitFor(async () => (await deliveryOf(late!)).status === 'failed', 'the late one');
    expect(await deliveryOf(late!)).toMatchObject({ lastError: 'subscription disabled', attempts: 0 });
    expect(r.received.length).toBe(before);
    expect(sender.inFlight()).toBe(0);
  });

  it('cuts a receiver that hangs at 5 s, and it does not delay another subscription (§11.4, §11.7)', async () => {
    // Two receiving hosts (127.0.0.2 and 127.0.0.1): the cap is per host name, whatever the port.
    const hanging: Receiver = track(await receiver(() => undefined, 0, '127.0.0.2'));
    const fast = track(await receiver());
    const f = await storeAndApp(database.db);
    const slowSub = await subscription(database.db, f, hanging.url);
    const fastSub = await subscription(database.db, f, fast.url);
    const slowIds = await deliveries(database.db, f, slowSub, 10);
    const fastIds = await deliveries(database.db, f, fastSub, 20);
    const started = Date.now();
    await track(inProcessSender(database.db, { PLATFORM_SENDER_PER_HOST: '2' }));
    await waitFor(() => fast.received.length === 20, 'the other subscription', 30_000);
    const fastDone = Date.now();
    // Every fast delivery arrived before the first hanging attempt was cut.
    expect(fastDone - started).toBeLessThan(5000);
    expect(hanging.received.length).toBeLessThanOrEqual(2); // at most 2 in flight to that host
    await waitFor(async () => (await attemptsOf(slowIds[0]!)).length === 1, 'the cut', 30_000);
    const [cut] = await attemptsOf(slowIds[0]!);
    expect(cut!.error).toBe('timeout: no complete answer within 5 s');
    expect(cut!.responseStatus).toBeNull();
    expect(cut!.durationMs).toBeGreaterThanOrEqual(4900);
    for (const id of fastIds) expect((await deliveryOf(id)).status).toBe('delivered');
  });

  it('does not follow a redirect: a 3xx is a failed attempt (§11.2)', async () => {
    const r = track(
      await receiver((q, res) => {
        if (q.url === '/start') res.writeHead(302, { location: '/elsewhere' }).end();
        else res.writeHead(200).end();
      }),
    );
    const f = await storeAndApp(database.db);
    const sub = await subscription(database.db, f, `${r.url}/start`);
    const [webhookId] = await deliveries(database.db, f, sub, 1);
    await track(inProcessSender(database.db));
    await waitFor(async () => (await attemptsOf(webhookId!)).length === 1, 'the attempt');
    await sleep(200);
    expect(r.received.map((x) => x.path)).toEqual(['/start']);
    const [a] = await attemptsOf(webhookId!);
    expect(a).toMatchObject({ responseStatus: 302, error: 'HTTP 302: redirect to /elsewhere not followed' });
    expect((await deliveryOf(webhookId!)).status).toBe('pending');
  });

  it('keeps at most 4 KB of a huge answer, read with a cap', async () => {
    const big = 'x'.repeat(5 * 1024 * 1024);
    const r = track(await receiver((_q, res) => res.writeHead(500).end(big)));
    const f = await storeAndApp(database.db);
    const sub = await subscription(database.db, f, r.url);
    const [webhookId] = await deliveries(database.db, f, sub, 1);
    await track(inProcessSender(database.db));
    await waitFor(async () => (await attemptsOf(webhookId!)).length === 1, 'the attempt');
    const [a] = await attemptsOf(webhookId!);
    expect(a!.responseBody).toHaveLength(RESPONSE_BODY_LIMIT);
    expect(a!.responseStatus).toBe(500);
  });

  describe('private targets (PLATFORM_WEBHOOK_ALLOW_PRIVATE=false, §11.2)', () => {
    const strict = { PLATFORM_WEBHOOK_ALLOW_PRIVATE: 'false' };

    it('refuses a name that resolves to 127.0.0.1 at connect time, and records a failed attempt', async () => {
      const r = track(await receiver());
      const f = await storeAndApp(database.db);
      // `localhost` through the system resolver, and a name whose answer changed to a loopback address (DNS rebinding).
      const subA = await subscription(database.db, f, `https://localhost:${r.port}/a`);
      const subB = await subscription(database.db, f, `https://rebound.example.test:${r.port}/b`);
      const [a] = await deliveries(database.db, f, subA, 1);
      const [b] = await deliveries(database.db, f, subB, 1);
      const resolve = (host: string, cb: (e: NodeJS.ErrnoException | null, addrs: { address: string; family: number }[]) => void) => {
        if (host === 'rebound.example.test') return cb(null, [{ address: '127.0.0.1', family: 4 }]);
        import('node:dns').then(
          (dns) => dns.lookup(host, { all: true }, cb),
          (e: Error) => cb(e, []),
        );
      };
      await track(inProcessSender(database.db, strict, { resolve }));
      await waitFor(async () => (await attemptsOf(a!)).length === 1 && (await attemptsOf(b!)).length === 1, 'both attempts');
      const [attemptA] = await attemptsOf(a!);
      const [attemptB] = await attemptsOf(b!);
      expect(attemptA!.error).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1), a private, loopback or link-local address/);
      expect(attemptB!.error).toBe(
        'refused: rebound.example.test resolves to 127.0.0.1, a private, loopback or link-local address (set PLATFORM_WEBHOOK_ALLOW_PRIVATE=true to allow it)',
      );
      expect(attemptA!.responseStatus).toBeNull();
      expect((await deliveryOf(a!)).status).toBe('pending');
      expect(r.received).toHaveLength(0);
    });

    it('refuses http:// and private IP literals before connecting', async () => {
      const r = track(await receiver());
      const f = await storeAndApp(database.db);
      const http = await subscription(database.db, f, `http://example.com:${r.port}/`);
      const literal = await subscription(database.db, f, `https://[::ffff:127.0.0.1]:${r.port}/`);
      const [a] = await deliveries(database.db, f, http, 1);
      const [b] = await deliveries(database.db, f, literal, 1);
      await track(inProcessSender(database.db, strict));
      await waitFor(async () => (await attemptsOf(a!)).length === 1 && (await attemptsOf(b!)).length === 1, 'both attempts');
      expect((await attemptsOf(a!))[0]!.error).toBe('refused: http:// addresses need PLATFORM_WEBHOOK_ALLOW_PRIVATE=true (https:// only)');
      expect((await attemptsOf(b!))[0]!.error).toBe(
        'refused: ::ffff:7f00:1 is a private, loopback or link-local address (set PLATFORM_WEBHOOK_ALLOW_PRIVATE=true to allow it)',
      );
      expect(r.received).toHaveLength(0);
    });
  });

  it('serves /metrics: deliveries by outcome, queue depth and the age of the oldest due delivery', async () => {
    const r = track(await receiver((_q, res) => res.writeHead(500).end()));
    const f = await storeAndApp(database.db);
    const sub = await subscription(database.db, f, r.url);
    const sender = await track(inProcessSender(database.db));
    const ids = await deliveries(database.db, f, sub, 2);
    await waitFor(() => r.received.length >= 2, 'attempts');
    await waitFor(async () => (await attemptsOf(ids[1]!)).length === 1, 'recorded');
    await sender.stop();
    await advanceClock(database.db, 60); // both are due again, and have been for about 48-52 s
    const text = await (sender as unknown as { metrics: { registry: { metrics(): Promise<string> } } }).metrics.registry.metrics();
    expect(text).toMatch(/webhook_deliveries_total\{outcome="retry"\} 2/);
    expect(text).toMatch(/webhook_attempts_total\{result="http_error"\} 2/);
    // Outcomes that did not happen are 0, not missing (a rate() sees the first one; the alert rules find them).
    expect(text).toMatch(/^webhook_deliveries_total\{outcome="failed"\} 0$/m);
    expect(text).toMatch(/^webhook_attempts_total\{result="network"\} 0$/m);
    // Each attempt timed once, in seconds (the receiver answers at once on loopback).
    expect(text).toMatch(/^webhook_attempt_duration_seconds_count 2$/m);
    const took = Number(/^webhook_attempt_duration_seconds_sum (\S+)$/m.exec(text)?.[1]);
    expect(took).toBeGreaterThan(0);
    expect(took).toBeLessThan(1);
    expect(text).toMatch(/webhook_queue_depth\{due="now"\} [1-9]/);
    const age = Number(/^webhook_oldest_due_age_seconds (\S+)$/m.exec(text)?.[1]);
    expect(age).toBeGreaterThan(40);
  });

  it('with the shortest lease (6 s, under two attempt timeouts) claims only what it sends: nothing claimed to be given back', async () => {
    // A claim held ready for a slot is given back once less than two attempts' time (10 s) is left
    // of it: under a 6 s lease the sender would claim deliveries at every round only to release them
    // at the next. With PLATFORM_SENDER_PER_HOST=2 two are in flight, the other 98 stay unclaimed.
    const answers: (() => void)[] = [];
    const r = track(await receiver((_q, res) => answers.push(() => res.writeHead(200).end('ok'))));
    const f = await storeAndApp(database.db);
    const sub = await subscription(database.db, f, `${r.url}/short-lease`);
    await deliveries(database.db, f, sub, 100);
    await track(inProcessSender(database.db, { PLATFORM_SENDER_LEASE_MS: '6000', PLATFORM_SENDER_PER_HOST: '2' }));
    await waitFor(() => answers.length === 2, 'two attempts in flight');
    const leased = () => database.db.prisma.webhookDelivery.count({ where: { subscriptionId: sub.id, leaseOwner: { not: null } } });
    for (let i = 0; i < 10; i++) {
      expect(await leased()).toBe(2);
      await sleep(50);
    }
    r.handler = (_q, res) => res.writeHead(200).end('ok');
    for (const answer of answers.splice(0)) answer();
    await waitFor(
      async () => (await database.db.prisma.webhookDelivery.count({ where: { subscriptionId: sub.id, status: 'delivered' } })) === 100,
      'every delivery delivered',
    );
    expect(await leased()).toBe(0);
  });
});
