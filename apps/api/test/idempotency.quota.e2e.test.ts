/*
 * Issue 43, finding 2 (decisions §12.5): what is kept for Idempotency-Keys is bounded in bytes per
 * (app, store) and for the operator. Past the quota a keyed POST is 429 with Retry-After, decided
 * before anything runs or is written; replays, unkeyed POSTs and other callers' keys go on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, operator, startPlatform, storeWithApp, VERSION, type Answer, type TestPlatform } from './harness';

// About 2 KB each: a handful of small answers (a kept webhook or product is a few hundred bytes
// compressed and sealed).
const QUOTA_MB = '0.002';
const QUOTA_BYTES = Math.ceil(0.002 * 1024 * 1024);

let t: TestPlatform;
const op = () => operator(t);
let keys = 0;
const newKey = () => `quota-${(keys += 1)}`;
const withKey = (key: string) => ({ 'idempotency-key': key });
const hook = (address: string) => ({ webhook: { topic: 'inventory_items/update', address: `https://hooks.example.com/${address}` } });

beforeAll(async () => {
  t = await startPlatform({
    PLATFORM_RATE_LIMIT_CAPACITY: '100000',
    PLATFORM_IDEMPOTENCY_QUOTA_MB: QUOTA_MB,
    PLATFORM_IDEMPOTENCY_OPERATOR_QUOTA_MB: QUOTA_MB,
  });
});
afterAll(() => t.close());

const keptRows = () => t.db.prisma.idempotencyKey.count();
const keptBytes = async () => (await t.db.prisma.idempotencyUsage.aggregate({ _sum: { bytes: true } }))._sum.bytes ?? 0n;

/** Keyed POSTs with new keys until one is refused; every one before it was taken (201). */
async function fillUntilRefused(send: (key: string, i: number) => Promise<Answer>) {
  const taken: { key: string; i: number; answer: Answer }[] = [];
  for (let i = 0; i < 60; i += 1) {
    const key = newKey();
    const answer = await send(key, i);
    if (answer.status === 429) return { taken, refused: { key, i, answer } };
    expect(answer.status).toBe(201);
    taken.push({ key, i, answer });
  }
  throw new Error(`no 429 after ${taken.length} keyed POSTs (quota ${QUOTA_BYTES} bytes)`);
}

function expectQuotaRefusal(answer: Answer, whose: RegExp) {
  expect(answer.status).toBe(429);
  expect(answer.body.errors).toMatch(/have reached their quota; send this request again after Retry-After seconds/);
  expect(answer.body.errors).toMatch(whose);
  expect(answer.headers.get('traceid')).toMatch(/\S/);
  expect(answer.headers.get('idempotent-replayed')).toBeNull();
  const retryAfter = answer.headers.get('retry-after');
  expect(retryAfter).toMatch(/^[1-9]\d*$/);
  return Number(retryAfter);
}

describe('per (app, store)', () => {
  let shop: Awaited<ReturnType<typeof storeWithApp>>;
  const subscriptions = async (admin = shop.admin) =>
    ((await admin('/webhooks.json')).body.webhooks as { address: string }[]).map((w) => w.address);

  beforeAll(async () => {
    shop = await storeWithApp(t, 'quota-app', ['read_inventory']);
  });

  it('refuses a keyed POST past the quota with 429 and Retry-After, writing nothing; the same request again likewise', async () => {
    // Three answers now, the rest two hours later: freeing the first three is what brings the scope
    // back under its quota, 22 hours on.
    const early = [];
    for (const i of [0, 1, 2]) {
      const key = newKey();
      const r = await shop.admin('/webhooks.json', { body: hook(`early-${i}`), headers: withKey(key) });
      expect(r.status).toBe(201);
      early.push({ key, body: hook(`early-${i}`), answer: r });
    }
    await op().advanceClock(2 * 3600);
    const { taken, refused } = await fillUntilRefused((key, i) =>
      shop.admin('/webhooks.json', { body: hook(`fill-${i}`), headers: withKey(key) }),
    );
    expect(taken.length).toBeGreaterThan(0);
    expect(await keptBytes()).toBeGreaterThanOrEqual(BigInt(QUOTA_BYTES));
    const retryAfter = expectQuotaRefusal(refused.answer, /this app's Idempotency-Keys on this store/);
    // When the three early answers expire (24 hours after them, within the minute they are counted by).
    expect(retryAfter).toBeGreaterThanOrEqual(22 * 3600);
    expect(retryAfter).toBeLessThanOrEqual(22 * 3600 + 60);
    expect(await subscriptions()).not.toContain(`https://hooks.example.com/fill-${refused.i}`);

    const rowsBefore = await keptRows();
    const bytesBefore = await keptBytes();
    const again = await shop.admin('/webhooks.json', { body: hook(`fill-${refused.i}`), headers: withKey(refused.key) });
    expectQuotaRefusal(again, /this app's Idempotency-Keys/);
    expect([await keptRows(), await keptBytes()]).toEqual([rowsBefore, bytesBefore]);
    expect(await subscriptions()).not.toContain(`https://hooks.example.com/fill-${refused.i}`);

    // A key already kept still replays (a replay writes nothing), and is still judged against its request.
    const replay = await shop.admin('/webhooks.json', { body: early[0]!.body, headers: withKey(early[0]!.key) });
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.text]).toEqual([201, 'true', early[0]!.answer.text]);
    expect((await shop.admin('/webhooks.json', { body: hook('other-body'), headers: withKey(early[0]!.key) })).status).toBe(422);
    expect([await keptRows(), await keptBytes()]).toEqual([rowsBefore, bytesBefore]);

    // Not a second write: POSTs without a key run as always.
    const unkeyed = await shop.admin('/webhooks.json', { body: hook('unkeyed') });
    expect(unkeyed.status).toBe(201);
    expect(await keptRows()).toBe(rowsBefore);

    // Keys of another app on the store, and the operator's, are other quotas.
    const other = await op().createPrivateApp('quota-app', ['read_inventory']);
    const otherKeyed = await call(`${t.origin}/admin/openapi/${VERSION}/webhooks.json`, {
      token: other.access_token,
      body: hook('other-app'),
      headers: withKey(newKey()),
    });
    expect(otherKeyed.status).toBe(201);
    const operatorKeyed = await op().call('/stores/quota-app/products', {
      body: { product: { title: 'Operator' } },
      headers: withKey(newKey()),
    });
    expect(operatorKeyed.status).toBe(201);

    // A minute before Retry-After: still refused; at it, taken again.
    await op().advanceClock(retryAfter - 60);
    expectQuotaRefusal(await shop.admin('/webhooks.json', { body: hook('later'), headers: withKey(refused.key) }), /this app's/);
    await op().advanceClock(60);
    const later = await shop.admin('/webhooks.json', { body: hook('later'), headers: withKey(refused.key) });
    expect([later.status, later.headers.get('idempotent-replayed')]).toEqual([201, null]);
  });
});

describe('for the operator', () => {
  it('counts every store together: past the quota on one store, a keyed POST on another is refused too', async () => {
    await op().createStore('quota-op-one');
    await op().createStore('quota-op-two');
    const { refused } = await fillUntilRefused((key, i) =>
      op().call('/stores/quota-op-one/products', { body: { product: { title: `Filler ${i} ${'x'.repeat(40)}` } }, headers: withKey(key) }),
    );
    expectQuotaRefusal(refused.answer, /the operator's Idempotency-Keys/);

    const rowsBefore = await keptRows();
    const productsBefore = await t.db.prisma.product.count();
    const elsewhere = await op().call('/stores/quota-op-two/products', {
      body: { product: { title: 'Elsewhere' } },
      headers: withKey(newKey()),
    });
    expectQuotaRefusal(elsewhere, /the operator's/);
    expect([await keptRows(), await t.db.prisma.product.count()]).toEqual([rowsBefore, productsBefore]);

    // Unkeyed operator POSTs run; an app's keys on that store have their own quota.
    expect((await op().call('/stores/quota-op-two/products', { body: { product: { title: 'Unkeyed' } } })).status).toBe(201);
    const shop = await storeWithApp(t, 'quota-op-three', ['read_inventory']);
    expect((await shop.admin('/webhooks.json', { body: hook('app-beside-operator'), headers: withKey(newKey()) })).status).toBe(201);
  });
});
