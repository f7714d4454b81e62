import { readFileSync } from 'node:fs';
import * as net from 'node:net';
import { join } from 'node:path';
import * as tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttp1Client, http1Target, type Http1Client, type Http1Options } from './http1';

// The sender's HTTP/1.1 client against receivers written byte by byte on real loopback sockets:
// what it sends, how it frames answers, when it keeps a connection, and what it refuses.

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
const options: Http1Options = { connectTimeoutMs: 1000, timeoutMs: 2000, keepAliveMs: 4000, bodyLimit: 4096 };
const headers = { 'content-type': 'application/json', 'x-platform-topic': 'inventory_items/update' };

let client: Http1Client | undefined;
let server: Seen | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function setUp(answer: Answer, extra: Partial<Http1Options> = {}, secure = false) {
  server = await receiver(answer, secure);
  client = createHttp1Client({ ...options, ...extra });
  const target = http1Target(new URL(`${secure ? 'https' : 'http'}://127.0.0.1:${server.port}/hooks/in?x=1`));
  return { server, client, target };
}

/** Writes `text` one byte at a time, each after the last was handed to the kernel. */
async function dribble(socket: net.Socket, text: string): Promise<void> {
  for (const byte of Buffer.from(text, 'latin1')) {
    await new Promise<void>((resolve) => socket.write(Buffer.from([byte]), () => setImmediate(resolve)));
  }
}

const waitFor = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('the sender HTTP/1.1 client', () => {
  it('sends one POST with the Host, Content-Length in bytes, the headers and the exact body', async () => {
    const { server, client, target } = await setUp((socket) => socket.write(ok()));
    const body = JSON.stringify({ inventory_item: { sku: 'été ✓' } });
    const answer = await client.post(target, body, headers);
    expect(answer.status).toBe(200);
    const [request] = server.requests;
    expect(request!.head.split('\r\n')).toEqual([
      'POST /hooks/in?x=1 HTTP/1.1',
      `host: 127.0.0.1:${server.port}`,
      `content-length: ${Buffer.byteLength(body)}`,
      'content-type: application/json',
      'x-platform-topic: inventory_items/update',
    ]);
    expect(request!.body).toBe(body);
  });

  it('keeps a connection for the next POST to the same origin, and reads Retry-After and Location in any case', async () => {
    const { server, client, target } = await setUp((socket, r) =>
      socket.write(
        r.index === 0
          ? 'HTTP/1.1 429 Too Many Requests\r\nRETRY-AFTER: 120\r\nContent-Length: 4\r\n\r\nslow'
          : 'HTTP/1.1 302 Found\r\nlocation: https://elsewhere.example/x\r\ncontent-length: 0\r\n\r\n',
      ),
    );
    const first = await client.post(target, '{}', headers);
    const second = await client.post(target, '{}', headers);
    expect([first.status, first.retryAfter, first.body.toString()]).toEqual([429, '120', 'slow']);
    expect([second.status, second.location]).toEqual([302, 'https://elsewhere.example/x']);
    expect(server.connections).toBe(1);
  });

  it('reads a chunked answer sent a byte at a time, with extensions and trailers, and keeps the connection', async () => {
    const { server, client, target } = await setUp((socket, r) => {
      if (r.index === 0)
        void dribble(
          socket,
          'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n',
        );
      else socket.write(ok('again'));
    });
    const answer = await client.post(target, '{}', headers);
    expect(answer.body.toString()).toBe('hello, world');
    expect((await client.post(target, '{}', headers)).body.toString()).toBe('again');
    expect(server.connections).toBe(1);
  });

  it('skips interim 1xx answers, and gives 204 and 304 no body', async () => {
    const { server, client, target } = await setUp((socket, r) => {
      if (r.index === 0)
        socket.write(
          'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok',
        );
      else if (r.index === 1) socket.write('HTTP/1.1 204 No Content\r\n\r\n');
      else socket.write('HTTP/1.1 304 Not Modified\r\n\r\n');
    });
    expect((await client.post(target, '{}', headers)).status).toBe(201);
    expect((await client.post(target, '{}', headers)).status).toBe(204);
    expect((await client.post(target, '{}', headers)).status).toBe(304);
    expect(server.connections).toBe(1);
  });

  it('takes a status line without a reason phrase and header values with spaces around them', async () => {
    const { client, target } = await setUp((socket) => socket.write('HTTP/1.1 503\r\nRetry-After: \t 30  \r\ncontent-length:2\r\n\r\nno'));
    const answer = await client.post(target, '{}', headers);
    expect([answer.status, answer.retryAfter, answer.body.toString()]).toEqual([503, '30', 'no']);
  });

  it('reads an answer without length to the close, then connects again', async () => {
    const { server, client, target } = await setUp((socket) => socket.end('HTTP/1.1 200 OK\r\n\r\nuntil the end'));
    expect((await client.post(target, '{}', headers)).body.toString()).toBe('until the end');
    expect((await client.post(target, '{}', headers)).body.toString()).toBe('until the end');
    expect(server.connections).toBe(2);
  });

  it.each([
    ['Connection: close', 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'],
    ['an HTTP/1.0 answer', 'HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n'],
    ['Keep-Alive: timeout=1 (nothing left after the 1 s margin)', 'HTTP/1.1 200 OK\r\nKeep-Alive: timeout=1\r\nContent-Length: 0\r\n\r\n'],
    ['bytes after the answer', 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'],
    [
      'Transfer-Encoding beside Content-Length',
      'HTTP/1.1 200 OK\r\nContent-Length: 50\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
    ],
  ])('does not keep the connection after %s', async (_, text) => {
    const { server, client, target } = await setUp((socket) => socket.write(text));
    expect((await client.post(target, '{}', headers)).status).toBe(200);
    expect((await client.post(target, '{}', headers)).status).toBe(200);
    expect(server.connections).toBe(2);
    await waitFor(() => server.closed >= 1);
    expect(server.closed).toBeGreaterThanOrEqual(1);
  });

  it('closes kept connections after keepAliveMs', async () => {
    const { server, client, target } = await setUp((socket) => socket.write(ok()), { keepAliveMs: 200 });
    await client.post(target, '{}', headers);
    await waitFor(() => server.closed === 1);
    expect(server.closed).toBe(1);
  });

  it('uses a new connection when the receiver closed the kept one', async () => {
    const { server, client, target } = await setUp((socket) => socket.end(ok()));
    await client.post(target, '{}', headers);
    await waitFor(() => server.closed === 1);
    expect((await client.post(target, '{}', headers)).status).toBe(200);
    expect(server.connections).toBe(2);
  });

  it('sends once more on a new connection when a kept one is closed before any answer; a new one closed so fails', async () => {
    const { server, client, target } = await setUp((socket, r) => {
      if (r.onConnection === 1)
        socket.destroy(); // the second POST on the first connection: no answer
      else if (r.index === 2)
        socket.destroy(); // the retry's connection, first POST: no answer either
      else socket.write(ok());
    });
    await client.post(target, '{}', headers);
    await expect(client.post(target, '{"n":2}', headers)).rejects.toMatchObject({ code: 'CLOSED' });
    expect(server.requests.map((r) => [r.connection, r.body])).toEqual([
      [1, '{}'],
      [1, '{"n":2}'],
      [2, '{"n":2}'],
    ]);
    // And a retry that is answered settles the POST.
    expect((await client.post(target, '{"n":3}', headers)).status).toBe(200);
  });

  it('keeps the first bodyLimit bytes of a long or endless answer and closes its connection', async () => {
    let endless: NodeJS.Timeout | undefined;
    const { server, client, target } = await setUp((socket, r) => {
      if (r.index === 0) socket.write(ok('x'.repeat(1_000_000)));
      else {
        socket.write('HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n');
        endless = setInterval(() => socket.writable && socket.write('400\r\n' + 'y'.repeat(1024) + '\r\n'), 1);
      }
    });
    const long = await client.post(target, '{}', headers);
    expect(long.body.length).toBe(4096);
    const again = await client.post(target, '{}', headers);
    clearInterval(endless);
    expect([again.status, again.body.length, again.body.toString().replaceAll('y', '')]).toEqual([500, 4096, '']);
    expect(server.connections).toBe(2);
    await waitFor(() => server.closed === 2);
    expect(server.closed).toBe(2);
  });

  it.each([
    ['a status line that is not HTTP/1.1', 'HTTP/2 200\r\n\r\n'],
    ['a four-digit status', 'HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n'],
    ['garbage', 'hello there\r\n\r\n'],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nContent-Length 0\r\n\r\n'],
    ['obsolete line folding', 'HTTP/1.1 200 OK\r\nX-A: 1\r\n  folded\r\nContent-Length: 0\r\n\r\n'],
    ['a space before the colon', 'HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n'],
    ['conflicting Content-Length headers', 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!'],
    ['a list of differing lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nhello!'],
    ['a negative Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n'],
    ['a chunk size that is not hex', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n'],
    ['chunk data without its CRLF', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXX0\r\n\r\n'],
    ['chunked not last', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n'],
    ['more than 10 interim answers', 'HTTP/1.1 100 Continue\r\n\r\n'.repeat(11) + 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'],
    ['a switch of protocols', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n'],
    ['a bare CR in a header value', 'HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 0\r\n\r\n'],
    ['a header line ended by a bare LF', 'HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n'],
    ['a NUL in a header value', 'HTTP/1.1 200 OK\r\nX-A: a\0b\r\nContent-Length: 0\r\n\r\n'],
    ['a head over 16 KiB', `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\nContent-Length: 0\r\n\r\n`],
    ['a head over 16 KiB without its end', `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(17 * 1024)}`],
  ])('refuses %s as a bad answer and closes the connection', async (_, text) => {
    const { server, client, target } = await setUp((socket) => socket.write(text));
    await expect(client.post(target, '{}', headers)).rejects.toMatchObject({ code: 'BAD_ANSWER' });
    await waitFor(() => server.closed === 1);
    expect(server.closed).toBe(1);
  });

  it('reads a head that comes in pieces, up to 16 KiB in all, and refuses one that goes over', async () => {
    const big = `X-Big: ${'a'.repeat(16 * 1024 - 100)}\r\n`;
    const { server, client, target } = await setUp((socket, r) => {
      const head = `HTTP/1.1 200 OK\r\n${r.index === 0 ? big : big + big}Content-Length: 2\r\n\r\nok`;
      // In pieces of 1,000 bytes, each written after the last was sent.
      void (async () => {
        for (let i = 0; i < head.length; i += 1000)
          await new Promise<void>((resolve) => socket.write(head.slice(i, i + 1000), () => setTimeout(resolve, 1)));
      })();
    });
    expect((await client.post(target, '{}', headers)).body.toString()).toBe('ok');
    await expect(client.post(target, '{}', headers)).rejects.toMatchObject({ code: 'BAD_ANSWER' });
    expect(server.connections).toBe(1);
  });

  it('cuts an exchange at timeoutMs whether the head or the body never completes', async () => {
    const { server, client, target } = await setUp(
      (socket, r) => {
        if (r.index === 1) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf');
      },
      { timeoutMs: 300 },
    );
    await expect(client.post(target, '{}', headers)).rejects.toMatchObject({ code: 'TIMEOUT', message: 'no complete answer within 0.3 s' });
    await expect(client.post(target, '{}', headers)).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(server.connections).toBe(2);
  });

  it('cuts connecting at connectTimeoutMs, the TLS handshake included', async () => {
    const silent = net.createServer(() => undefined); // accepts and never speaks TLS
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    client = createHttp1Client({ ...options, connectTimeoutMs: 200 });
    const port = (silent.address() as net.AddressInfo).port;
    await expect(client.post(http1Target(new URL(`https://127.0.0.1:${port}/`)), '{}', headers)).rejects.toMatchObject({
      code: 'CONNECT_TIMEOUT',
    });
    silent.close();
  });

  it('refuses a header value or address with a line break before connecting (no header injection)', async () => {
    const { server, client, target } = await setUp((socket) => socket.write(ok()));
    await expect(client.post(target, '{}', { 'x-platform-shop-domain': 'a.example\r\nX-Evil: 1' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(client.post({ ...target, path: '/a\r\nX-Evil: 1' }, '{}', headers)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(server.connections).toBe(0);
  });

  it('speaks TLS with the certificate checked: trusted by a CA it is given, refused without', async () => {
    const { server, target } = await setUp((socket) => socket.write(ok('secure')), { tls: { ca: cert } }, true);
    expect((await client!.post(target, '{}', headers)).body.toString()).toBe('secure');
    const untrusting = createHttp1Client(options);
    await expect(untrusting.post(target, '{}', headers)).rejects.toMatchObject({
      code: expect.stringMatching(/SELF_SIGNED|UNABLE_TO_VERIFY/),
    });
    await untrusting.close();
    expect(server.requests).toHaveLength(1);
  });

  it('close() closes kept connections and refuses later POSTs', async () => {
    const { server, client, target } = await setUp((socket) => socket.write(ok()));
    await client.post(target, '{}', headers);
    await client.close();
    await waitFor(() => server.closed === 1);
    expect(server.closed).toBe(1);
    await expect(client.post(target, '{}', headers)).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
  });
});
