import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

/**
 * A real HTTP CONNECT proxy on loopback, as a platform team puts in front of its senders (a test
 * fixture: node:http's 'connect' event and a pipe). It resolves the names itself, as a real one
 * does: `hosts` maps a name to the address it connects to (names not in it are resolved by the
 * system); `allow` is its fence: a CONNECT to anything else is answered 403 and never connected.
 * `silent` accepts CONNECTs and never answers them (a stalled proxy).
 */
export interface ConnectProxy {
  url: string;
  /** the CONNECT targets it was asked for (`host:port`), in order, whether it allowed them or not */
  asked: string[];
  /** the `Proxy-Authorization` header of each CONNECT, in the same order */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

export async function connectProxy(
  options: { hosts?: Record<string, string>; allow?: (host: string) => boolean; silent?: boolean } = {},
): Promise<ConnectProxy> {
  const asked: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => res.writeHead(405).end('CONNECT only'));
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    asked.push(target);
    authorizations.push(req.headers['proxy-authorization']);
    client.on('error', () => undefined);
    if (options.silent) return;
    const at = target.lastIndexOf(':');
    const host = target.slice(0, at).replace(/^\[(.*)\]$/, '$1');
    const port = Number(target.slice(at + 1));
    if (options.allow && !options.allow(host)) {
      client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const upstream = connect({ host: options.hosts?.[host] ?? host, port });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    asked,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
