/*
 * Pacing and retries against the real API's rate limiter (decisions §7): a server with a small
 * bucket (capacity 5, 2 per second) so the test is quick; the client's bucket set to match.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, PlatformApiError, type SdkEvent } from '../src/index';
import { startLiveServer, VERSION, type LiveServer } from './live-server';

let server: LiveServer;
let token: string;
const BURST = 12;

beforeAll(async () => {
  server = await startLiveServer({ PLATFORM_RATE_LIMIT_CAPACITY: '5', PLATFORM_RATE_LIMIT_LEAK_PER_SECOND: '2' });
  await server.createStore('paced');
}, 120_000);
afterAll(() => server?.close());

// Each test uses its own app: the service keeps one bucket per (app, store), and so does the client.
async function freshToken() {
  ({ token } = await server.createPrivateApp('paced', ['read_store_information']));
  return token;
}

const burst = (client: ReturnType<typeof createClient>) => Promise.allSettled(Array.from({ length: BURST }, () => client.shop.get()));

describe('against the real rate limiter', () => {
  it('meets 429s on a burst without pacing or retries (what the other tests guard against)', async () => {
    const client = createClient({
      baseUrl: server.origin,
      accessToken: await freshToken(),
      apiVersion: VERSION,
      rateLimit: false,
      retry: false,
    });
    const results = await burst(client);
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason as PlatformApiError);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toBeInstanceOf(PlatformApiError);
    expect(refused[0]).toMatchObject({ status: 429, errors: 'Too many requests', method: 'GET' });
    expect(refused[0]!.retryAfter).toBeGreaterThanOrEqual(1);
  });

  it('paces a burst with the client-side bucket: no 429 at all, and says it waited', async () => {
    const events: SdkEvent[] = [];
    const client = createClient({
      baseUrl: server.origin,
      accessToken: await freshToken(),
      apiVersion: VERSION,
      rateLimit: { capacity: 5, leakPerSecond: 2 },
      retry: false,
      onEvent: (e) => events.push(e),
    });
    const results = await burst(client);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(events.filter((e) => e.type === 'response').map((e) => (e.type === 'response' ? e.status : 0))).toEqual(Array(BURST).fill(200));
    expect(events.some((e) => e.type === 'throttle')).toBe(true);
  });

  it('without pacing, retries each 429 after Retry-After seconds until every request succeeds', async () => {
    const events: SdkEvent[] = [];
    const client = createClient({
      baseUrl: server.origin,
      accessToken: await freshToken(),
      apiVersion: VERSION,
      rateLimit: false,
      retry: { maxRetries: 10 },
      onEvent: (e) => events.push(e),
    });
    const results = await burst(client);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const retries = events.filter((e) => e.type === 'retry');
    expect(retries.length).toBeGreaterThan(0);
    // Retry-After is whole seconds (decisions §7.2): waits are whole seconds too, never the header read as milliseconds.
    for (const retry of retries) {
      expect(retry).toMatchObject({ status: 429 });
      expect(retry.type === 'retry' && retry.delayMs >= 1000 && retry.delayMs % 1000 === 0).toBe(true);
    }
  });
});
