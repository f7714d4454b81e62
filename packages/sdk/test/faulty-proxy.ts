/*
 * A real HTTP proxy on loopback in front of the real API, which can lose an answer the way a
 * network does: it forwards the request, reads the service's whole answer (so the service has
 * committed), then drops the connection, or never answers, or answers 502 without forwarding.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does with one request: pass the answer on, lose it after the service answered, hold it, or fail before the service. */
export type Fault = 'forward' | 'drop-answer' | 'hold-answer' | 'bad-gateway';

export interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The service's status and headers, when the request reached it. */
  upstream?: { status: number; headers: IncomingHttpHeaders };
}

export interface FaultyProxy {
  origin: string;
  seen: Seen[];
  close(): Promise<void>;
}

/** `fault(request, n)` decides for the n-th request (from 0). */
export async function startFaultyProxy(
  target: string,
  fault: (request: { method: string; path: string }, n: number) => Fault,
): Promise<FaultyProxy> {
  const upstream = new URL(target);
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry: Seen = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers };
      const decision = fault(entry, seen.length);
      seen.push(entry);
      if (decision === 'bad-gateway') {
        res.writeHead(502, { 'content-type': 'application/json' });
        return res.end('{"errors":"Bad Gateway"}');
      }
      const forwarded = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: entry.method,
          path: entry.path,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => body.push(chunk));
          answer.on('end', () => {
            entry.upstream = { status: answer.statusCode ?? 0, headers: answer.headers };
            if (decision === 'drop-answer') return req.socket.destroy();
            if (decision === 'hold-answer') return; // until the client gives up and closes
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(body));
          });
        },
      );
      forwarded.on('error', () => res.destroy());
      forwarded.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
