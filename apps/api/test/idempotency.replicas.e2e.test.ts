/*
 * Idempotency keys live in the database (docs/idempotency.md), so two API instances on one database
 * answer a repeat alike, and duplicates sent at once run once. On PostgreSQL (TEST_DATABASE_URL)
 * these are two replicas of a deployment; on SQLite, two servers on one file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, freshDatabase, listen, OPERATOR_TOKEN, testConfig, VERSION, type TestPlatform } from './harness';

let database: Awaited<ReturnType<typeof freshDatabase>>;
let one: TestPlatform;
let two: TestPlatform;
let token: string;

beforeAll(async () => {
  database = await freshDatabase();
  const config = testConfig(database.url, { PLATFORM_RATE_LIMIT_CAPACITY: '100000' });
  one = await listen(config);
  two = await listen(config);
  const operatorCall = (path: string, body: unknown) => call(`${one.origin}/platform/v1${path}`, { token: OPERATOR_TOKEN, body });
  await operatorCall('/stores', { store: { handle: 'replicas', name: 'Replicas' } });
  const app = await operatorCall('/apps', {
    app: { name: 'Replicated', kind: 'private', scopes: ['read_inventory'], store_handle: 'replicas' },
  });
  token = app.body.access_token;
});
afterAll(async () => {
  await one?.close();
  await two?.close();
  await database?.drop();
});

const subscribe = (t: TestPlatform, key: string, address: string) =>
  call(`${t.origin}/admin/openapi/${VERSION}/webhooks.json`, {
    token,
    body: { webhook: { topic: 'inventory_items/update', address: `https://hooks.example.com/${address}` } },
    headers: { 'idempotency-key': key },
  });
const addresses = async () =>
  ((await call(`${two.origin}/admin/openapi/${VERSION}/webhooks.json`, { token })).body.webhooks as { address: string }[]).map(
    (w) => w.address,
  );

describe('two API instances on one database', () => {
  it('replays on one instance the answer the other gave, and refuses there another body under the key', async () => {
    const first = await subscribe(one, 'shared-key', 'shared');
    expect(first.status).toBe(201);
    const repeat = await subscribe(two, 'shared-key', 'shared');
    expect([repeat.status, repeat.headers.get('idempotent-replayed'), repeat.text]).toEqual([201, 'true', first.text]);
    expect((await subscribe(two, 'shared-key', 'another')).status).toBe(422);
    expect((await addresses()).filter((a) => a.endsWith('/shared') || a.endsWith('/another'))).toEqual([
      'https://hooks.example.com/shared',
    ]);
  });

  it('runs duplicates sent at once to both instances exactly once: one answer, the others replays or 409', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => subscribe(i % 2 === 0 ? one : two, 'burst-key', 'burst')));
    const fresh = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    const replays = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === 'true');
    const busy = answers.filter((a) => a.status === 409);
    expect(fresh).toHaveLength(1);
    expect(replays.length + busy.length).toBe(answers.length - 1);
    for (const replay of replays) expect(replay.text).toBe(fresh[0]!.text);
    for (const refusal of busy) expect(refusal.headers.get('retry-after')).toBe('1');
    expect((await addresses()).filter((a) => a.endsWith('/burst'))).toHaveLength(1);
    // Once the first has answered, every instance replays it.
    for (const t of [one, two]) expect((await subscribe(t, 'burst-key', 'burst')).headers.get('idempotent-replayed')).toBe('true');
  });
});
