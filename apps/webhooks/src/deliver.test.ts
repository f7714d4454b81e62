import { readFileSync } from 'node:fs';
import * as net from 'node:net';
import { join } from 'node:path';
import * as tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { createDeliveryAgent, RESPONSE_BODY_LIMIT, type DeliveryAgent, type DeliveryAgentOptions } from './deliver';

// The sender's delivery agent (undici underneath) against receivers written byte by byte on real
// loopback sockets: what it sends, how answers are framed and kept, when a connection is kept, what
// is refused, and what each outcome reads like in an attempt's record.

const fixtures = join(__dirname, '..', 'test', 'fixtures');
const cert = readFileSync(join(fixtures, 'receiver-cert.pem'));
const key = readFileSync(join(fixtures, 'receiver-key.pem'));

interface Seen {
  /** each request as received: head and body */
  requests: { head: string; body: string; connection: number }[];
  connections: number;
  /** connections the receiver saw closed */
  closed: number;
  port: number;
  close(): Promise<void>;
}

type Answer = (socket: net.Socket, request: { head: string; body: string; index: number; onConnection: number }) => void;

/** A receiver that parses requests (head, Content-Length body) and answers each with `answer`. */
async function receiver(answer: Answer, secure = false): Promise<Seen> {
  const seen: Seen = { requests: [], connections: 0, closed: 0, port: 0, close: async () => undefined };
  const sockets = new Set<net.Socket>();
  const onSocket = (socket: net.Socket) => {
    const connection = ++seen.connections;
    sockets.add(socket);
    socket.on('close', () => {
      seen.closed++;
      sockets.delete(socket);
    });
    socket.on('error', () => undefined);
    let buffered = '';
    let onConnection = 0;
    socket.on('data', (data: Buffer) => {
      buffered += data.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.slice(0, end);
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const body = Buffer.from(buffered.slice(end + 4, end + 4 + length), 'latin1').toString('utf8');
        buffered = buffered.slice(end + 4 + length);
        seen.requests.push({ head, body, connection });
        answer(socket, { head, body, index: seen.requests.length - 1, onConnection: onConnection++ });
      }
    });
  };
  const server = secure ? tls.createServer({ cert, key }, onSocket) : net.createServer(onSocket);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  seen.port = (server.address() as net.AddressInfo).port;
  seen.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return seen;
}

const ok = (body = ''): string => `HTTP/1.1 200 OK\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
// Generous limits where a test is not about them: the machine is shared and sometimes loaded.
const options: DeliveryAgentOptions = { allowPrivate: true, connectTimeoutMs: 5000, timeoutMs: 10_000 };
const headers = { 'content-type': 'application/json', 'x-platform-topic': 'inventory_items/update' };

let agent: DeliveryAgent | undefined;
let server: Seen | undefined;
afterEach(async () => {
  await agent?.close();
  await server?.close();
  agent = undefined;
  server = undefined;
});

async function setUp(answer: Answer, extra: Partial<DeliveryAgentOptions> = {}, secure = false) {
  server = await receiver(answer, secure);
  agent = createDeliveryAgent({ ...options, ...extra });
  const url = `${secure ? 'https' : 'http'}://127.0.0.1:${server.port}/hooks/in?x=1`;
  return { server, agent, url };
}

/** Writes `text` one byte at a time, each after the last was handed to the kernel. */
async function dribble(socket: net.Socket, text: string): Promise<void> {
  for (const byte of Buffer.from(text, 'latin1')) {
    await new Promise<void>((resolve) => socket.write(Buffer.from([byte]), () => setImmediate(resolve)));
  }
}

/**
 * One turn of the event loop: undici reuses a kept connection from the turn after its answer (it
 * first lets a FIN or stray bytes the receiver sent meanwhile be read), so a POST made at once goes
 * on a connection of its own. The sender's held deliveries start that way; its slots then use up to
 * about twice as many connections as they have requests open, all kept.
 */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * `count` requests, each on a connection of its own (the one before it was closed under it). Not a
 * count of connections: after an abort undici 7 opens one more connection for the aborted request
 * and finds it aborted (nodejs/undici#5845): a wasted connect per cut attempt, kept idle for the
 * next POST to the origin or closed after the keep-alive time.
 */
function expectEachOnItsOwnConnection(seen: Seen, count: number): void {
  expect(seen.requests).toHaveLength(count);
  expect(new Set(seen.requests.map((r) => r.connection)).size).toBe(count);
}

const waitFor = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('the delivery agent (undici)', () => {
  it('sends one POST with the Host, Content-Length in bytes, the headers and the exact body', async () => {
    const { server, agent, url } = await setUp((socket) => socket.write(ok()));
    const body = JSON.stringify({ inventory_item: { sku: 'été ✓' } });
    const result = await agent.post(url, body, headers);
    expect(result).toMatchObject({ ok: true, status: 200, error: null, responseBody: '' });
    const [request] = server.requests;
    const lines = request!.head.split('\r\n');
    expect(lines[0]).toBe('POST /hooks/in?x=1 HTTP/1.1');
    expect(lines).toEqual(
      expect.arrayContaining([
        `host: 127.0.0.1:${server.port}`,
        `content-length: ${Buffer.byteLength(body)}`,
        'content-type: application/json',
        'x-platform-topic: inventory_items/update',
      ]),
    );
    expect(request!.body).toBe(body);
  });

  it('keeps a connection for the next POST to the same origin, and reads Retry-After and Location in any case', async () => {
    const { server, agent, url } = await setUp((socket, r) =>
      socket.write(
        r.index === 0
          ? 'HTTP/1.1 429 Too Many Requests\r\nRETRY-AFTER: 120\r\nContent-Length: 4\r\n\r\nslow'
          : 'HTTP/1.1 302 Found\r\nlocation: https://elsewhere.example/x\r\ncontent-length: 0\r\n\r\n',
      ),
    );
    const first = await agent.post(url, '{}', headers);
    await nextTurn();
    const second = await agent.post(url, '{}', headers);
    expect(first).toMatchObject({ ok: false, status: 429, retryAfter: '120', responseBody: 'slow', error: 'HTTP 429' });
    expect(second).toMatchObject({ ok: false, status: 302, error: 'HTTP 302: redirect to https://elsewhere.example/x not followed' });
    expect(server.requests).toHaveLength(2); // the redirect was not followed
    expect(server.connections).toBe(1);
  });

  it('reads a chunked answer sent a byte at a time, with extensions and trailers, and keeps the connection', async () => {
    const { server, agent, url } = await setUp((socket, r) => {
      if (r.index === 0)
        void dribble(
          socket,
          'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n',
        );
      else socket.write(ok('again'));
    });
    expect((await agent.post(url, '{}', headers)).responseBody).toBe('hello, world');
    await nextTurn();
    expect((await agent.post(url, '{}', headers)).responseBody).toBe('again');
    expect(server.connections).toBe(1);
  });

  it('skips an interim 103 answer, and gives 204 and 304 no body', async () => {
    const { server, agent, url } = await setUp((socket, r) => {
      if (r.index === 0) socket.write('HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok');
      else if (r.index === 1) socket.write('HTTP/1.1 204 No Content\r\n\r\n');
      else socket.write('HTTP/1.1 304 Not Modified\r\n\r\n');
    });
    expect(await agent.post(url, '{}', headers)).toMatchObject({ ok: true, status: 201, responseBody: 'ok' });
    await nextTurn();
    expect(await agent.post(url, '{}', headers)).toMatchObject({ ok: true, status: 204, responseBody: '' });
    await nextTurn();
    expect(await agent.post(url, '{}', headers)).toMatchObject({ ok: false, status: 304, responseBody: '' });
    expect(server.connections).toBe(1);
  });

  it('takes a status line without a reason phrase and header values with spaces around them', async () => {
    const { agent, url } = await setUp((socket) => socket.write('HTTP/1.1 503\r\nRetry-After: \t 30  \r\ncontent-length:2\r\n\r\nno'));
    expect(await agent.post(url, '{}', headers)).toMatchObject({ status: 503, retryAfter: '30', responseBody: 'no' });
  });

  it('reads an answer without length to the close, then connects again', async () => {
    const { server, agent, url } = await setUp((socket) => socket.end('HTTP/1.1 200 OK\r\n\r\nuntil the end'));
    expect((await agent.post(url, '{}', headers)).responseBody).toBe('until the end');
    expect((await agent.post(url, '{}', headers)).responseBody).toBe('until the end');
    expect(server.connections).toBe(2);
  });

  it.each([
    ['Connection: close', 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'],
    ['an HTTP/1.0 answer', 'HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n'],
    ['Keep-Alive: timeout=1 (nothing left after the margin)', 'HTTP/1.1 200 OK\r\nKeep-Alive: timeout=1\r\nContent-Length: 0\r\n\r\n'],
    ['bytes after the answer', 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'],
  ])('does not keep the connection after %s', async (_, text) => {
    const { server, agent, url } = await setUp((socket) => socket.write(text));
    expect((await agent.post(url, '{}', headers)).status).toBe(200);
    await waitFor(() => server.closed >= 1);
    expect((await agent.post(url, '{}', headers)).status).toBe(200);
    expect(server.connections).toBe(2);
    expect(server.closed).toBeGreaterThanOrEqual(1);
  });

  it('closes kept connections after keepAliveMs', async () => {
    const { server, agent, url } = await setUp((socket) => socket.write(ok()), { keepAliveMs: 200 });
    await agent.post(url, '{}', headers);
    await waitFor(() => server.closed === 1);
    expect(server.closed).toBe(1);
  });

  it('uses a new connection when the receiver closed the kept one', async () => {
    const { server, agent, url } = await setUp((socket) => socket.end(ok()));
    await agent.post(url, '{}', headers);
    await waitFor(() => server.closed === 1);
    expect((await agent.post(url, '{}', headers)).status).toBe(200);
    expect(server.connections).toBe(2);
  });

  it('fails a POST the receiver closes without answering, and sends the next on a new connection', async () => {
    const { server, agent, url } = await setUp((socket, r) => {
      if (r.index === 1) socket.destroy();
      else socket.write(ok());
    });
    expect((await agent.post(url, '{"n":1}', headers)).ok).toBe(true);
    await nextTurn();
    expect(await agent.post(url, '{"n":2}', headers)).toMatchObject({
      ok: false,
      status: null,
      error: 'connection closed by the receiver before a complete answer',
    });
    expect((await agent.post(url, '{"n":3}', headers)).ok).toBe(true);
    // Not sent twice: a receiver that read it and closed may have acted on it; the retry schedule sends it again.
    expect(server.requests.map((r) => [r.connection, r.body])).toEqual([
      [1, '{"n":1}'],
      [1, '{"n":2}'],
      [2, '{"n":3}'],
    ]);
  });

  it('keeps the first 4 KB of a long or endless answer and closes its connection', async () => {
    let endless: NodeJS.Timeout | undefined;
    const { server, agent, url } = await setUp(
      (socket, r) => {
        if (r.index === 0) socket.write(ok('x'.repeat(1_000_000)));
        else {
          socket.write('HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n');
          endless = setInterval(() => socket.writable && socket.write('400\r\n' + 'y'.repeat(1024) + '\r\n'), 1);
        }
      },
      { keepAliveMs: 200 },
    );
    const long = await agent.post(url, '{}', headers);
    expect(long).toMatchObject({ ok: true, status: 200 });
    expect(long.responseBody).toHaveLength(RESPONSE_BODY_LIMIT);
    await nextTurn();
    const again = await agent.post(url, '{}', headers);
    clearInterval(endless);
    expect([again.status, again.responseBody?.length, again.responseBody?.replaceAll('y', '')]).toEqual([500, RESPONSE_BODY_LIMIT, '']);
    expectEachOnItsOwnConnection(server, 2);
    // Every connection is closed: each cut one, and the idle one undici opens after an abort (below).
    await waitFor(() => server.closed === server.connections);
    expect(server.closed).toBe(server.connections);
  });

  it.each([
    ['a status line that is not HTTP/1.1', 'HTTP/2 200\r\n\r\n'],
    ['a four-digit status', 'HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n'],
    ['garbage', 'hello there\r\n\r\n'],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nContent-Length 0\r\n\r\n'],
    ['obsolete line folding', 'HTTP/1.1 200 OK\r\nX-A: 1\r\n  folded\r\nContent-Length: 0\r\n\r\n'],
    ['a header line ended by a bare LF', 'HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n'],
    ['a space before the colon', 'HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n'],
    ['conflicting Content-Length headers', 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!'],
    ['a list of differing lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nhello!'],
    ['a negative Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n'],
    [
      'Transfer-Encoding beside Content-Length',
      'HTTP/1.1 200 OK\r\nContent-Length: 50\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
    ],
    ['a chunk size that is not hex', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n'],
    ['chunk data without its CRLF', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXX0\r\n\r\n'],
    ['an interim 100 Continue nobody asked for', 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'],
    ['a switch of protocols', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n'],
    ['a bare CR in a header value', 'HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 0\r\n\r\n'],
    ['a NUL in a header value', 'HTTP/1.1 200 OK\r\nX-A: a\0b\r\nContent-Length: 0\r\n\r\n'],
    ['a head over 16 KiB', `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\nContent-Length: 0\r\n\r\n`],
    ['a head over 16 KiB without its end', `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(17 * 1024)}`],
  ])('refuses %s as a bad answer and closes the connection', async (_, text) => {
    const { server, agent, url } = await setUp((socket) => socket.write(text));
    const result = await agent.post(url, '{}', headers);
    expect(result).toMatchObject({ ok: false, status: null, responseBody: null });
    expect(result.error).toMatch(/^bad answer: /);
    await waitFor(() => server.closed === 1);
    expect(server.closed).toBe(1);
  });

  it('reads a head that comes in pieces, up to 16 KiB in all, and refuses one that goes over', async () => {
    const big = `X-Big: ${'a'.repeat(16 * 1024 - 200)}\r\n`;
    const { server, agent, url } = await setUp((socket, r) => {
      const head = `HTTP/1.1 200 OK\r\n${r.index === 0 ? big : big + big}Content-Length: 2\r\n\r\nok`;
      // In pieces of 1,000 bytes, each written after the last was sent.
      void (async () => {
        for (let i = 0; i < head.length; i += 1000)
          await new Promise<void>((resolve) => socket.write(head.slice(i, i + 1000), () => setTimeout(resolve, 1)));
      })();
    });
    expect((await agent.post(url, '{}', headers)).responseBody).toBe('ok');
    await nextTurn();
    expect((await agent.post(url, '{}', headers)).error).toBe("bad answer: the answer's head is over 16 KiB");
    expect(server.connections).toBe(1);
  });

  it('cuts an exchange at the time limit whether the head or the body never completes, or the body dribbles', async () => {
    const { server, agent, url } = await setUp(
      (socket, r) => {
        if (r.index === 1) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf');
        if (r.index === 2) {
          socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n');
          // A byte every 100 ms: never idle long enough for a gap timeout, never done in time.
          const drip = setInterval(() => (socket.writable ? socket.write('x') : clearInterval(drip)), 100);
        }
      },
      // A short keep-alive: the idle connection undici opens after the last abort goes soon too.
      { timeoutMs: 1000, keepAliveMs: 200 },
    );
    const timeout = { ok: false, status: null, error: 'timeout: no complete answer within 1 s' };
    for (let i = 0; i < 3; i++) expect(await agent.post(url, '{}', headers)).toMatchObject(timeout);
    expectEachOnItsOwnConnection(server, 3);
    await waitFor(() => server.closed === server.connections);
    expect(server.closed).toBe(server.connections);
  });

  it('cuts connecting at the connect time limit, the TLS handshake included', async () => {
    const silent = net.createServer(() => undefined); // accepts and never speaks TLS
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    agent = createDeliveryAgent({ ...options, connectTimeoutMs: 200 });
    const port = (silent.address() as net.AddressInfo).port;
    expect(await agent.post(`https://127.0.0.1:${port}/`, '{}', headers)).toMatchObject({
      ok: false,
      error: 'connect timeout: no connection within 0.2 s',
    });
    silent.close();
  });

  it('refuses a header value with a line break before connecting (no header injection)', async () => {
    const { server, agent, url } = await setUp((socket) => socket.write(ok()));
    const result = await agent.post(url, '{}', { 'x-platform-shop-domain': 'a.example\r\nX-Evil: 1' });
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toMatch(/^refused: invalid x-platform-shop-domain header/);
    expect(server.connections).toBe(0);
  });

  it('speaks TLS with the certificate checked: trusted by a CA it is given, refused without', async () => {
    const { server, url } = await setUp((socket) => socket.write(ok('secure')), { tls: { ca: cert } }, true);
    expect((await agent!.post(url, '{}', headers)).responseBody).toBe('secure');
    const untrusting = createDeliveryAgent(options);
    const refused = await untrusting.post(url, '{}', headers);
    await untrusting.close();
    expect(refused.error).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY/);
    expect(server.requests).toHaveLength(1);
  });

  it('close() closes kept connections, and later POSTs are not sent', async () => {
    const { server, agent, url } = await setUp((socket) => socket.write(ok()));
    await agent.post(url, '{}', headers);
    await agent.close();
    await waitFor(() => server.closed === 1);
    expect(server.closed).toBe(1);
    expect(await agent.post(url, '{}', headers)).toMatchObject({ ok: false, error: 'not sent: the sender is stopping' });
  });
});
