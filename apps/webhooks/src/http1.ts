import * as net from 'node:net';
import * as tls from 'node:tls';

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

const DEFAULT_MAX_HEAD = 16 * 1024;
const MAX_CHUNK_LINE = 1024;
const UNSAFE_VALUE = /[\0\r\n]/;
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [^\0\r\n]*)?$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;[^\0\r\n]*)?$/;
const DIGITS = /^\d{1,15}$/;
/** How often kept connections and exchanges are checked against their deadlines (only while there are any). */
const SWEEP_MS = 50;

type Framing = 'none' | 'length' | 'chunked' | 'close';
type ChunkState = 'size' | 'data' | 'data-end' | 'trailers';

/** One request and its answer, on one connection. */
class Exchange {
  /** the status line and headers read so far (latin1: one character a byte) */
  head = '';
  inBody = false;
  status = 0;
  retryAfter: string | undefined;
  location: string | undefined;
  framing: Framing = 'none';
  remaining = 0;
  chunk: ChunkState = 'size';
  line = '';
  trailerBytes = 0;
  kept: Buffer[] = [];
  keptBytes = 0;
  reusable = true;
  keepAliveMs: number;
  /** bytes of answer received: a kept connection closed before any may be retried */
  received = 0;
  settled = false;

  constructor(
    readonly target: Http1Target,
    readonly request: string,
    readonly deadline: number,
    readonly resolve: (answer: Http1Answer) => void,
    readonly reject: (error: Error) => void,
    keepAliveMs: number,
    /** a second try after a kept connection closed under it */
    readonly retried: boolean,
  ) {
    this.keepAliveMs = keepAliveMs;
  }
}

class Connection {
  exchange: Exchange | undefined;
  /** answers completed on it: a kept connection has at least one */
  served = 0;
  idleUntil = 0;
  connected = false;
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
    if (conn.served > 0 && ex.received === 0 && !ex.retried && !closing && !(error instanceof Http1Error && error.code !== 'CLOSED')) {
      ex.settled = true;
      conn.exchange = undefined;
      start(ex.target, ex.request, ex.deadline, ex.resolve, ex.reject, true);
      return;
    }
    settle(conn, ex, error);
  }

  function answerOf(ex: Exchange): Http1Answer {
    const body = ex.kept.length === 0 ? EMPTY : ex.kept.length === 1 ? ex.kept[0]! : Buffer.concat(ex.kept, ex.keptBytes);
    return { status: ex.status, body, retryAfter: ex.retryAfter, location: ex.location };
  }

  /** The answer is complete: settled, and the connection kept or closed. */
  function complete(conn: Connection, ex: Exchange, rest: number): void {
    conn.served++;
    settle(conn, ex, answerOf(ex));
    // Bytes after the answer, a request not yet fully written, or an answer that says so: not reused.
    if (!ex.reusable || rest > 0 || conn.socket.writableLength > 0 || closing || ex.keepAliveMs <= 0) return destroy(conn);
    busy.delete(conn);
    conn.idleUntil = performance.now() + ex.keepAliveMs;
    let list = idle.get(conn.key);
    if (!list) idle.set(conn.key, (list = []));
    list.push(conn);
  }

  /** The answer's body was cut at bodyLimit: settled with what was kept, the rest not read. */
  function cut(conn: Connection, ex: Exchange): void {
    settle(conn, ex, answerOf(ex));
    destroy(conn);
  }

  function keep(ex: Exchange, bytes: Buffer): boolean {
    const room = bodyLimit - ex.keptBytes;
    if (bytes.length === 0) return true;
    const part = bytes.length > room ? bytes.subarray(0, room) : bytes;
    if (part.length > 0) {
      ex.kept.push(part);
      ex.keptBytes += part.length;
    }
    return bytes.length < room;
  }

  /** Parses the status line and headers; false when the head was refused (the exchange failed). */
  function parseHead(conn: Connection, ex: Exchange, text: string): boolean {
    const lines = text.split('\r\n');
    const statusLine = STATUS_LINE.exec(lines[0]!);
    if (!statusLine) return badAnswer(conn, 'the answer is not HTTP/1.1');
    const minor = statusLine[1];
    const status = Number(statusLine[2]);
    let contentLength: string | undefined;
    let transferEncoding: string | undefined;
    let connection = '';
    let keepAlive: string | undefined;
    let retryAfter: string | undefined;
    let location: string | undefined;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      if (colon <= 0) return badAnswer(conn, 'a malformed header line in the answer');
      const name = line.slice(0, colon);
      if (!TOKEN.test(name)) return badAnswer(conn, 'a malformed header name in the answer');
      const value = line.slice(colon + 1).trim();
      if (value.includes('\0') || value.includes('\n') || value.includes('\r')) return badAnswer(conn, 'a malformed header value in the answer');
      switch (name.length === 8 || name.length === 10 || name.length === 11 || name.length === 14 || name.length === 17 ? name.toLowerCase() : '') {
        case 'content-length':
          if (contentLength !== undefined && contentLength !== value) return badAnswer(conn, 'conflicting Content-Length headers in the answer');
          contentLength = value;
          break;
        case 'transfer-encoding':
          transferEncoding = transferEncoding === undefined ? value : `${transferEncoding}, ${value}`;
          break;
        case 'connection':
          connection += `,${value.toLowerCase()}`;
          break;
        case 'keep-alive':
          keepAlive = value;
          break;
        case 'retry-after':
          retryAfter ??= value;
          break;
        case 'location':
          location ??= value;
          break;
      }
    }
    if (status < 200) {
      if (status === 101) return badAnswer(conn, 'the receiver switched protocols (101), which no delivery asks for');
      ex.head = ''; // an interim answer (100 Continue, 103): the real one follows
      return true;
    }
    ex.status = status;
    ex.retryAfter = retryAfter;
    ex.location = location;
    if (minor === '0' || /(^|,)\s*close\s*(,|$)/.test(connection)) ex.reusable = false;
    const timeout = keepAlive ? /(?:^|[,;\s])timeout\s*=\s*(\d+)/i.exec(keepAlive) : null;
    if (timeout) ex.keepAliveMs = Math.min(ex.keepAliveMs, Number(timeout[1]) * 1000 - 1000);
    if (status === 204 || status === 304) ex.framing = 'none';
    else if (transferEncoding !== undefined) {
      // With Content-Length too, Transfer-Encoding wins (RFC 9112 §6.3) and the connection is not reused.
      if (contentLength !== undefined) ex.reusable = false;
      const codings = transferEncoding.split(',').map((c) => c.trim().toLowerCase());
      if (codings.slice(0, -1).includes('chunked')) return badAnswer(conn, 'chunked applied twice or not last in the answer');
      if (codings[codings.length - 1] === 'chunked') ex.framing = 'chunked';
      else {
        ex.framing = 'close';
        ex.reusable = false;
      }
    } else if (contentLength !== undefined) {
      const parts = contentLength.split(',').map((p) => p.trim());
      if (!parts.every((p) => DIGITS.test(p) && p === parts[0])) return badAnswer(conn, 'a malformed Content-Length in the answer');
      ex.remaining = Number(parts[0]);
      ex.framing = ex.remaining === 0 ? 'none' : 'length';
    } else {
      ex.framing = 'close';
      ex.reusable = false;
    }
    ex.inBody = true;
    return true;
  }

  function badAnswer(conn: Connection, message: string): false {
    fail(conn, new Http1Error('BAD_ANSWER', message));
    return false;
  }

  /** Reads the chunked body from `data` at `at`; returns where the answer ended in `data` (-1: not yet, -2: settled otherwise). */
  function readChunked(conn: Connection, ex: Exchange, data: Buffer, at: number): number {
    while (at < data.length) {
      if (ex.chunk === 'data') {
        const n = Math.min(ex.remaining, data.length - at);
        if (!keep(ex, data.subarray(at, at + n))) {
          cut(conn, ex);
          return -2;
        }
        ex.remaining -= n;
        at += n;
        if (ex.remaining === 0) {
          ex.chunk = 'data-end';
          ex.line = '';
        }
        continue;
      }
      // A line: the chunk's size, the CRLF after its data, or a trailer.
      const lf = data.indexOf(10, at);
      const end = lf < 0 ? data.length : lf + 1;
      ex.line += data.toString('latin1', at, end);
      at = end;
      const limit = ex.chunk === 'trailers' ? maxHead : MAX_CHUNK_LINE;
      if (ex.line.length > limit) return badChunk(conn);
      if (lf < 0) continue;
      if (!ex.line.endsWith('\r\n')) return badChunk(conn);
      const line = ex.line.slice(0, -2);
      ex.line = '';
      if (ex.chunk === 'data-end') {
        if (line !== '') return badChunk(conn);
        ex.chunk = 'size';
      } else if (ex.chunk === 'size') {
        const size = CHUNK_SIZE.exec(line);
        if (!size) return badChunk(conn);
        ex.remaining = parseInt(size[1]!, 16);
        ex.chunk = ex.remaining === 0 ? 'trailers' : 'data';
      } else {
        ex.trailerBytes += line.length + 2;
        if (ex.trailerBytes > maxHead) return badChunk(conn);
        if (line === '') return at;
      }
    }
    return -1;
  }

  function badChunk(conn: Connection): number {
    badAnswer(conn, 'a malformed chunked body in the answer');
    return -2;
  }

  function onData(conn: Connection, data: Buffer): void {
    const ex = conn.exchange;
    if (!ex) return destroy(conn); // bytes nobody asked for (on a kept connection)
    ex.received += data.length;
    let at = 0;
    while (!ex.inBody) {
      const before = ex.head.length;
      ex.head += data.toString('latin1', at);
      const end = ex.head.indexOf('\r\n\r\n', Math.max(0, before - 3));
      if (end < 0) {
        if (ex.head.length > maxHead) badAnswer(conn, `the answer's head is over ${maxHead} bytes`);
        return;
      }
      if (end > maxHead) return void badAnswer(conn, `the answer's head is over ${maxHead} bytes`);
      at += end + 4 - before;
      const text = ex.head.slice(0, end);
      if (!parseHead(conn, ex, text)) return;
      if (!ex.inBody && at >= data.length) return; // an interim answer, the real one not here yet
    }
    switch (ex.framing) {
      case 'none':
        return complete(conn, ex, data.length - at);
      case 'length': {
        const n = Math.min(ex.remaining, data.length - at);
        if (!keep(ex, data.subarray(at, at + n))) return cut(conn, ex);
        ex.remaining -= n;
        if (ex.remaining === 0) complete(conn, ex, data.length - at - n);
        return;
      }
      case 'chunked': {
        const end = readChunked(conn, ex, data, at);
        if (end >= 0) complete(conn, ex, data.length - end);
        return;
      }
      case 'close':
        if (!keep(ex, data.subarray(at))) cut(conn, ex);
        return;
    }
  }

  function onEnd(conn: Connection): void {
    const ex = conn.exchange;
    // An answer read to the close is complete when the receiver closes.
    if (ex && ex.inBody && ex.framing === 'close') {
      settle(conn, ex, answerOf(ex));
      return destroy(conn);
    }
    fail(conn, new Http1Error('CLOSED', 'the receiver closed the connection before a complete answer'));
  }

  function connect(target: Http1Target): Connection {
    const socket = target.secure
      ? tls.connect({
          host: target.host,
          port: target.port,
          ...(net.isIP(target.host) === 0 ? { servername: target.host } : {}),
          ...(options.lookup ? { lookup: options.lookup } : {}),
          ALPNProtocols: ['http/1.1'],
          ...options.tls,
        })
      : net.connect({ host: target.host, port: target.port, ...(options.lookup ? { lookup: options.lookup } : {}) });
    const conn = new Connection(socket, target.origin);
    socket.setNoDelay(true);
    conn.connectTimer = setTimeout(() => {
      const seconds = options.connectTimeoutMs / 1000;
      fail(conn, new Http1Error('CONNECT_TIMEOUT', `no connection within ${seconds} s`));
    }, options.connectTimeoutMs);
    socket.once(target.secure ? 'secureConnect' : 'connect', () => {
      conn.connected = true;
      clearTimeout(conn.connectTimer);
    });
    socket.on('data', (data: Buffer) => onData(conn, data));
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
    conn.exchange = new Exchange(target, request, deadline, resolve, reject, options.keepAliveMs, retried);
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

const EMPTY = Buffer.alloc(0);
