import * as net from 'node:net';
import * as tls from 'node:tls';
import { AnswerReader, DEFAULT_MAX_HEAD, READ_BAD, READ_CUT } from './http1-answer';

/**
 * The sender's HTTP/1.1 client: one POST at a time per keep-alive connection, the request written in
 * one piece, the answer read with a parser that keeps only what a delivery records (status, two
 * headers, the first `bodyLimit` bytes of the body). A webhook delivery needs nothing more, and on
 * this path undici's dispatcher cost about 20 µs of CPU a POST more than this client (bench/webhooks,
 * docs/webhooks-sender.md "HTTP client"): a quarter of the sender's work per delivery.
 *
 * What it does and refuses (RFC 9112):
 * - Answers are framed by Transfer-Encoding (chunked last: chunked; else read to the close), else by
 *   Content-Length (repeated values must agree), else read to the close; 1xx answers are skipped,
 *   101 is refused (never asked for), 204 and 304 have no body.
 * - A head over `maxHeadBytes`, a malformed status line, header line, chunk size or Content-Length,
 *   obsolete line folding: the attempt fails with code BAD_ANSWER and the connection is closed.
 * - Header values holding CR, LF or NUL are refused before anything is written (no header injection).
 * - The whole exchange has `timeoutMs` (code TIMEOUT), connecting (TCP and TLS) `connectTimeoutMs`
 *   (code CONNECT_TIMEOUT). A connection is kept for the next POST to its origin only after a
 *   complete answer of HTTP/1.1 without `Connection: close`, with nothing written after it, for
 *   `keepAliveMs` (shorter when the answer's `Keep-Alive: timeout=N` asks: N - 1 s).
 * - A POST on a kept connection that the receiver closed before a byte of answer (it timed the
 *   connection out as we reused it) is sent once more on a new connection. That can repeat a request
 *   the receiver got and did not answer: deliveries are at least once, with the same webhook id.
 * - Names are resolved with `lookup` (the sender's check of private addresses, decisions §11.2);
 *   https verifies the receiver's certificate against the system's CAs (NODE_EXTRA_CA_CERTS adds).
 */
export interface Http1Options {
  connectTimeoutMs: number;
  timeoutMs: number;
  keepAliveMs: number;
  /** bytes of the answer's body kept; a longer answer is cut there and its connection closed */
  bodyLimit: number;
  /** the status line and headers at most (default 16 KiB, as undici and Node) */
  maxHeadBytes?: number;
  lookup?: net.LookupFunction;
  /** extra TLS options (tests: a CA of their own) */
  tls?: Pick<tls.ConnectionOptions, 'ca'>;
}

/** Where a POST goes, parsed once per address. */
export interface Http1Target {
  /** scheme, host and port: connections are kept per origin */
  origin: string;
  secure: boolean;
  /** the name or IP to connect to (no brackets) */
  host: string;
  port: number;
  /** the Host header: the URL's host, with its port when not the default */
  hostHeader: string;
  /** path and query, as the URL parser encoded them */
  path: string;
}

export interface Http1Answer {
  status: number;
  /** at most bodyLimit bytes */
  body: Buffer;
  retryAfter: string | undefined;
  location: string | undefined;
}

export class Http1Error extends Error {
  constructor(
    readonly code: 'TIMEOUT' | 'CONNECT_TIMEOUT' | 'BAD_ANSWER' | 'BAD_REQUEST' | 'CLOSED' | 'CLIENT_CLOSED',
    message: string,
  ) {
    super(message);
  }
}

export interface Http1Client {
  post(target: Http1Target, body: string, headers: Record<string, string>): Promise<Http1Answer>;
  /** Closes kept connections at once and the others when their exchange ends; resolves when all are closed. */
  close(): Promise<void>;
}

export function http1Target(url: URL): Http1Target {
  const secure = url.protocol === 'https:';
  return {
    origin: url.origin,
    secure,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    hostHeader: url.host,
    path: `${url.pathname}${url.search}`,
  };
}

const UNSAFE_VALUE = /[\0\r\n]/;
/** Where answers are read: one buffer for every connection of the process (a read is handled before the next). */
const READ_BUFFER_BYTES = 64 * 1024;

/** How often kept connections and exchanges are checked against their deadlines (only while there are any). */
const SWEEP_MS = 50;

/** One request and its answer, on one connection. */
class Exchange {
  settled = false;

  constructor(
    readonly target: Http1Target,
    readonly request: string,
    readonly deadline: number,
    readonly resolve: (answer: Http1Answer) => void,
    readonly reject: (error: Error) => void,
    readonly reader: AnswerReader,
    /** a second try after a kept connection closed under it */
    readonly retried: boolean,
  ) {}
}

class Connection {
  exchange: Exchange | undefined;
  /** answers completed on it: a kept connection has at least one */
  served = 0;
  idleUntil = 0;
  closed = false;
  connectTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly socket: net.Socket,
    readonly key: string,
  ) {}
}

export function createHttp1Client(options: Http1Options): Http1Client {
  const maxHead = options.maxHeadBytes ?? DEFAULT_MAX_HEAD;
  const { bodyLimit } = options;
  const idle = new Map<string, Connection[]>();
  const busy = new Set<Connection>();
  const readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  let sweeper: NodeJS.Timeout | undefined;
  let closing = false;
  let allClosed: (() => void) | undefined;

  function ensureSweeper(): void {
    if (sweeper) return;
    sweeper = setInterval(sweep, SWEEP_MS);
    sweeper.unref();
  }

  /** Exchanges past their deadline fail; kept connections past theirs close. Stops when there is nothing to watch. */
  function sweep(): void {
    const now = performance.now();
    for (const conn of busy) {
      const ex = conn.exchange;
      if (ex && now >= ex.deadline) {
        const seconds = options.timeoutMs / 1000;
        fail(conn, new Http1Error('TIMEOUT', `no complete answer within ${seconds} s`));
      }
    }
    for (const list of idle.values()) for (const conn of [...list]) if (now >= conn.idleUntil) destroy(conn);
    if (busy.size === 0 && idle.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  }

  function unlistIdle(conn: Connection): void {
    const list = idle.get(conn.key);
    if (!list) return;
    const at = list.indexOf(conn);
    if (at >= 0) list.splice(at, 1);
    if (list.length === 0) idle.delete(conn.key);
  }

  function destroy(conn: Connection): void {
    if (conn.closed) return;
    conn.closed = true;
    clearTimeout(conn.connectTimer);
    unlistIdle(conn);
    busy.delete(conn);
    conn.socket.destroy();
    if (closing && busy.size === 0) allClosed?.();
  }

  function settle(conn: Connection, ex: Exchange, outcome: Http1Answer | Error): void {
    if (ex.settled) return;
    ex.settled = true;
    if (conn.exchange === ex) conn.exchange = undefined;
    if (outcome instanceof Error) ex.reject(outcome);
    else ex.resolve(outcome);
  }

  function fail(conn: Connection, error: Error): void {
    const ex = conn.exchange;
    destroy(conn);
    if (!ex || ex.settled) return;
    // A kept connection the receiver closed before answering at all: once more on a new one.
    if (
      conn.served > 0 &&
      ex.reader.received === 0 &&
      !ex.retried &&
      !closing &&
      !(error instanceof Http1Error && error.code !== 'CLOSED')
    ) {
      ex.settled = true;
      conn.exchange = undefined;
      start(ex.target, ex.request, ex.deadline, ex.resolve, ex.reject, true);
      return;
    }
    settle(conn, ex, error);
  }

  /** The answer is complete: settled, and the connection kept or closed. */
  function complete(conn: Connection, ex: Exchange, rest: number): void {
    conn.served++;
    settle(conn, ex, ex.reader.answer());
    // Bytes after the answer, a request not yet fully written, or an answer that says so: not reused.
    if (!ex.reader.reusable || rest > 0 || conn.socket.writableLength > 0 || closing || ex.reader.keepAliveMs <= 0) return destroy(conn);
    busy.delete(conn);
    conn.idleUntil = performance.now() + ex.reader.keepAliveMs;
    let list = idle.get(conn.key);
    if (!list) idle.set(conn.key, (list = []));
    list.push(conn);
  }

  /** The answer's body was cut at bodyLimit: settled with what was kept, the rest not read. */
  function cut(conn: Connection, ex: Exchange): void {
    settle(conn, ex, ex.reader.answer());
    destroy(conn);
  }

  /** Bytes read on a connection: b[0, to) of the shared read buffer, handled before the next read. */
  function onRead(conn: Connection, b: Buffer, to: number): void {
    const ex = conn.exchange;
    if (!ex) return destroy(conn); // bytes nobody asked for (on a kept connection)
    const read = ex.reader.read(b, to);
    if (read >= 0) complete(conn, ex, read);
    else if (read === READ_CUT) cut(conn, ex);
    else if (read === READ_BAD) fail(conn, new Http1Error('BAD_ANSWER', ex.reader.error));
  }

  function onEnd(conn: Connection): void {
    const ex = conn.exchange;
    // An answer read to the close is complete when the receiver closes.
    if (ex?.reader.endsAtClose) {
      settle(conn, ex, ex.reader.answer());
      return destroy(conn);
    }
    fail(conn, new Http1Error('CLOSED', 'the receiver closed the connection before a complete answer'));
  }

  function connect(target: Http1Target): Connection {
    // Read into the shared buffer (`onread`): no Buffer and no stream machinery per read.
    const ref: { conn?: Connection } = {};
    const onread = {
      buffer: readBuffer,
      callback: (n: number, b: Uint8Array) => {
        onRead(ref.conn!, b as Buffer, n);
        return true;
      },
    };
    const socket = target.secure
      ? tls.connect({
          host: target.host,
          port: target.port,
          ...(net.isIP(target.host) === 0 ? { servername: target.host } : {}),
          ...(options.lookup ? { lookup: options.lookup } : {}),
          ALPNProtocols: ['http/1.1'],
          // TLS sockets take `onread` as net's do (Node >= 14); @types/node lists it for net only.
          onread,
          ...options.tls,
        } as tls.ConnectionOptions)
      : net.connect({ host: target.host, port: target.port, onread, ...(options.lookup ? { lookup: options.lookup } : {}) });
    const conn = (ref.conn = new Connection(socket, target.origin));
    socket.setNoDelay(true);
    conn.connectTimer = setTimeout(() => {
      const seconds = options.connectTimeoutMs / 1000;
      fail(conn, new Http1Error('CONNECT_TIMEOUT', `no connection within ${seconds} s`));
    }, options.connectTimeoutMs);
    socket.once(target.secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(conn.connectTimer);
    });
    socket.on('end', () => onEnd(conn));
    socket.on('error', (error) => fail(conn, error));
    socket.on('close', () => fail(conn, new Http1Error('CLOSED', 'the receiver closed the connection before a complete answer')));
    return conn;
  }

  function start(
    target: Http1Target,
    request: string,
    deadline: number,
    resolve: (answer: Http1Answer) => void,
    reject: (error: Error) => void,
    retried: boolean,
  ): void {
    if (closing) return reject(new Http1Error('CLIENT_CLOSED', 'the sender is stopping'));
    const list = retried ? undefined : idle.get(target.origin);
    let conn = list?.pop();
    if (list && list.length === 0) idle.delete(target.origin);
    conn ??= connect(target);
    conn.exchange = new Exchange(
      target,
      request,
      deadline,
      resolve,
      reject,
      new AnswerReader(maxHead, bodyLimit, options.keepAliveMs),
      retried,
    );
    busy.add(conn);
    ensureSweeper();
    conn.socket.write(request, 'utf8');
  }

  return {
    post(target, body, headers) {
      let request = `POST ${target.path} HTTP/1.1\r\nhost: ${target.hostHeader}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`;
      for (const name in headers) {
        const value = headers[name]!;
        if (UNSAFE_VALUE.test(value)) return Promise.reject(new Http1Error('BAD_REQUEST', `the header ${name} holds a line break or NUL`));
        request += `${name}: ${value}\r\n`;
      }
      if (UNSAFE_VALUE.test(target.path) || UNSAFE_VALUE.test(target.hostHeader))
        return Promise.reject(new Http1Error('BAD_REQUEST', 'the address holds a line break or NUL'));
      request += '\r\n';
      request += body;
      const deadline = performance.now() + options.timeoutMs;
      return new Promise<Http1Answer>((resolve, reject) => start(target, request, deadline, resolve, reject, false));
    },
    close() {
      closing = true;
      for (const list of [...idle.values()]) for (const conn of [...list]) destroy(conn);
      if (busy.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => (allClosed = resolve));
    },
  };
}
