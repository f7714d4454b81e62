/*
 * The SDK's retries of a POST against the real API (docs/idempotency.md), through a proxy that
 * loses answers: a create whose first answer is lost after the service committed is retried with
 * the same Idempotency-Key and yields one definition, not two.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { version } from '../package.json';
import { createClient, PlatformNetworkError, type ClientOptions, type SdkEvent } from '../src/index';
import { startFaultyProxy, type Fault, type FaultyProxy } from './faulty-proxy';
import { sharedLiveServer, VERSION, type LiveServer } from './live-server';

let server: LiveServer;
let token: string;
let proxy: FaultyProxy | undefined;
let n = 0;

beforeAll(async () => {
  server = await sharedLiveServer();
  await server.createStore('retries');
  ({ token } = await server.createPrivateApp('retries'));
}, 120_000);
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});
/** A client through a proxy that applies `first` to the first POST and forwards everything else. */
async function clientWith(first: Fault, options: Partial<ClientOptions> = {}) {
  proxy = await startFaultyProxy(server.origin, (request, index) => (request.method === 'POST' && index === 0 ? first : 'forward'));
  const events: SdkEvent[] = [];
  const client = createClient({
    baseUrl: proxy.origin,
    accessToken: token,
    apiVersion: VERSION,
    retry: { baseDelayMs: 10 },
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { client, events, proxy };
}

const definition = (key: string) => ({
  definition: { owner_resource: 'products', namespace: 'retries', key, name: 'Retried', type: 'single_line_text_field' },
});
const create = (client: ReturnType<typeof createClient>, key: string) => client.admin.createMetafieldDefinition({ body: definition(key) });

/** Definitions with `key`, read straight from the API (not through the proxy). */
async function stored(key: string): Promise<number> {
  const direct = createClient({ baseUrl: server.origin, accessToken: token, apiVersion: VERSION });
  let count = 0;
  for await (const d of direct.admin.listMetafieldDefinitions.iterate({ query: { owner_resource: 'products', namespace: 'retries' } })) {
    if (d.key === key) count += 1;
  }
  return count;
}

const posts = (p: FaultyProxy) => p.seen.filter((s) => s.method === 'POST');

describe('a POST whose answer is lost', () => {
  it('is retried with the same key after the connection drops once the service committed, and yields one definition', async () => {
    const key = `dropped_${(n += 1)}`;
    const { client, events, proxy } = await clientWith('drop-answer');
    const { definition: created } = await create(client, key);
    expect(created.key).toBe(key);
    expect(await stored(key)).toBe(1);
    const [first, retry] = posts(proxy);
    expect(first!.upstream?.status).toBe(201); // the service committed the first attempt
    expect(retry!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    expect(first!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(retry!.upstream?.headers['idempotent-replayed']).toBe('true');
    expect(events.filter((e) => e.type === 'retry')).toEqual([
      expect.objectContaining({ reason: 'network', idempotencyKey: first!.headers['idempotency-key'] }),
    ]);
  });

  it('is retried after a timeout (the answer never came) and yields one definition', async () => {
    const key = `held_${(n += 1)}`;
    const { client, proxy } = await clientWith('hold-answer', { timeoutMs: 2_000 });
    await create(client, key);
    expect(await stored(key)).toBe(1);
    const [first, retry] = posts(proxy);
    expect(first!.upstream?.status).toBe(201);
    expect(retry!.upstream?.headers['idempotent-replayed']).toBe('true');
  });

  it('is retried after a 502 from the gateway (the service never saw it), and runs once there', async () => {
    const key = `gateway_${(n += 1)}`;
    const { client, proxy } = await clientWith('bad-gateway');
    await create(client, key);
    expect(await stored(key)).toBe(1);
    const [first, retry] = posts(proxy);
    expect(first!.upstream).toBeUndefined();
    expect([retry!.upstream?.status, retry!.upstream?.headers['idempotent-replayed']]).toEqual([201, undefined]);
  });

  it('without a key (idempotencyKeys: false) is not retried: the caller learns the answer was lost', async () => {
    const key = `unkeyed_${(n += 1)}`;
    const { client, proxy } = await clientWith('drop-answer', { idempotencyKeys: false });
    await expect(create(client, key)).rejects.toBeInstanceOf(PlatformNetworkError);
    expect(posts(proxy)).toHaveLength(1);
    expect(posts(proxy)[0]!.headers['idempotency-key']).toBeUndefined();
    // It was carried out all the same: sending it again blindly would have met the duplicate rule.
    expect(await stored(key)).toBe(1);
  });
});

describe('what every request says about itself', () => {
  it('sends User-Agent platform-sdk/<version> node/<version>, on reads and writes, and a key on POSTs only', async () => {
    const { client, proxy } = await clientWith('forward');
    await client.shop.get();
    await create(client, `agent_${(n += 1)}`);
    expect(proxy.seen.map((s) => s.headers['user-agent'])).toEqual(Array(2).fill(`platform-sdk/${version} node/${process.versions.node}`));
    expect(proxy.seen.map((s) => [s.method, typeof s.headers['idempotency-key']])).toEqual([
      ['GET', 'undefined'],
      ['POST', 'string'],
    ]);
  });
});
