/*
 * A request that gets no answer says where it went (issue 46): the method, the path, the host and
 * port, and fetch's causes, in the message itself. Node's fetch says only `fetch failed`; the refused
 * address is in its cause, which a log line of `error.message` never shows. Real connections to a
 * loopback port that nothing listens on.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createClient, createOAuth, PlatformNetworkError } from '../src/index';
import { describeCause, hostAndPort } from '../src/errors';

/** A loopback port that was free a moment ago and is closed now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a network error', () => {
  it('names the method, path, host and port and the refused connection in its message', async () => {
    const port = await closedPort();
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, accessToken: 't', apiVersion: 'v20260901', retry: false });
    const error = await client.shop.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformNetworkError);
    expect((error as PlatformNetworkError).message).toBe(
      `GET /admin/openapi/v20260901/merchants/shop.json at 127.0.0.1:${port}: network error: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    expect(error).toMatchObject({ method: 'GET', host: `127.0.0.1:${port}` });
  });

  it("of an OAuth token call says the same (the token call's own fetch)", async () => {
    const port = await closedPort();
    const oauth = createOAuth({ appKey: 'k', appSecret: 's', baseUrl: `http://127.0.0.1:${port}` });
    const error = await oauth.exchangeCode('demo', 'code').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformNetworkError);
    expect((error as Error).message).toMatch(
      new RegExp(`^POST /admin/oauth/token/create at 127\\.0\\.0\\.1:${port}: network error: fetch failed: connect ECONNREFUSED`),
    );
  });

  it("writes the scheme's default port, and every address tried when a name has several", () => {
    expect(hostAndPort('https://demo.myplatform.com/admin')).toBe('demo.myplatform.com:443');
    expect(hostAndPort('http://[::1]/x')).toBe('[::1]:80');
    const tried = new AggregateError([new Error('connect ECONNREFUSED ::1:3000'), new Error('connect ECONNREFUSED 127.0.0.1:3000')], '');
    expect(describeCause(new TypeError('fetch failed', { cause: tried }))).toBe(
      'fetch failed: connect ECONNREFUSED ::1:3000; connect ECONNREFUSED 127.0.0.1:3000',
    );
    expect(describeCause('socket hang up')).toBe('socket hang up');
  });
});
