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
/** Interim (1xx) answers one exchange takes before its answer. */
const MAX_INTERIM = 10;
const UNSAFE_VALUE = /[\0\r\n]/;
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;[^\0\r\n]*)?$/;
const DIGITS = /^\d{1,15}$/;
/** Where answers are read: one buffer for every connection of the process (a read is handled before the next). */
const READ_BUFFER_BYTES = 64 * 1024;
const CR = 13;
const LF = 10;
/** RFC 9110 tchar: the bytes a header name may hold. */
const TCHAR = new Uint8Array(256);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TCHAR[c.charCodeAt(0)] = 1;
/** The answer's headers the client reads (lower case); the others are checked and skipped. */
const CONTENT_LENGTH = 'content-length';
const TRANSFER_ENCODING = 'transfer-encoding';
const CONNECTION = 'connection';
const KEEP_ALIVE = 'keep-alive';
const RETRY_AFTER = 'retry-after';
const LOCATION = 'location';
const WANTED = [CONTENT_LENGTH, TRANSFER_ENCODING, CONNECTION, KEEP_ALIVE, RETRY_AFTER, LOCATION];

/** The header name at b[from, to), if it is one of WANTED (compared without regard to case). */
function wantedName(b: Buffer, from: number, to: number): string | undefined {
  const length = to - from;
  for (const name of WANTED) {
    if (name.length !== length) continue;
    let i = 0;
    while (i < length && (b[from + i]! | 0x20) === name.charCodeAt(i)) i++;
    if (i === length) return name;
  }
  return undefined;
}

let lastKeepAlive = '';
let lastKeepAliveMs = Infinity;
/** How long a `Keep-Alive: timeout=N` answer lets a connection be kept: N - 1 s (Infinity: no timeout named). The last value is remembered (a receiver sends the same on every answer). */
function keepAliveHintMs(value: string): number {
  if (value !== lastKeepAlive) {
    const timeout = /(?:^|[,;\s])timeout\s*=\s*(\d+)/i.exec(value);
    lastKeepAlive = value;
    lastKeepAliveMs = timeout ? Number(timeout[1]) * 1000 - 1000 : Infinity;
  }
  return lastKeepAliveMs;
}

/** Where "\r\n\r\n" starts in b[from, to), or -1. */
function headEnd(b: Buffer, from: number, to: number): number {
  for (let i = from; i + 3 < to; i++) {
    if (b[i + 3] !== LF) continue;
    if (b[i] === CR && b[i + 1] === LF && b[i + 2] === CR) return i;
  }
  return -1;
}

/** How often kept connections and exchanges are checked against their deadlines (only while there are any). */
const SWEEP_MS = 50;

type Framing = 'none' | 'length' | 'chunked' | 'close';
type ChunkState = 'size' | 'data' | 'data-end' | 'trailers';

/** One request and its answer, on one connection. */
class Exchange {
  /** a head that spans reads, copied as it comes (the read buffer is reused), and its length so far */
  head: Buffer | undefined;
  headLength = 0;
  /** interim (1xx) answers read so far */
  interim = 0;
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

  /** Keeps what fits of b[from, to) (copied: the read buffer is reused); false once bodyLimit is reached. */
  function keep(ex: Exchange, b: Buffer, from: number, to: number): boolean {
    if (to <= from) return true;
    const room = bodyLimit - ex.keptBytes;
    const n = Math.min(room, to - from);
    if (n > 0) {
      const part = Buffer.allocUnsafe(n);
      b.copy(part, 0, from, from + n);
      ex.kept.push(part);
      ex.keptBytes += n;
    }
    return to - from < room;
  }

  /**
   * Parses the status line and headers in b[0, end) (end: where "\r\n\r\n" starts), byte by byte:
   * only the headers the client reads become strings. False when the head was refused (the exchange
   * failed).
   */
  function parseHead(conn: Connection, ex: Exchange, b: Buffer, end: number): boolean {
    // "HTTP/1.x SSS[ reason]"
    if (
      end < 12 ||
      b[0] !== 0x48 ||
      b[1] !== 0x54 ||
      b[2] !== 0x54 ||
      b[3] !== 0x50 ||
      b[4] !== 0x2f ||
      b[5] !== 0x31 ||
      b[6] !== 0x2e ||
      (b[7] !== 0x30 && b[7] !== 0x31) ||
      b[8] !== 0x20
    )
      return badAnswer(conn, 'the answer is not HTTP/1.1');
    const minor = b[7]! - 0x30;
    const d0 = b[9]! - 0x30;
    const d1 = b[10]! - 0x30;
    const d2 = b[11]! - 0x30;
    if (d0 < 1 || d0 > 9 || d1 < 0 || d1 > 9 || d2 < 0 || d2 > 9) return badAnswer(conn, 'the answer is not HTTP/1.1');
    const status = d0 * 100 + d1 * 10 + d2;
    let at = 12;
    if (at < end && b[at] !== CR) {
      if (b[at] !== 0x20) return badAnswer(conn, 'the answer is not HTTP/1.1');
      for (; at < end && b[at] !== CR; at++) if (b[at] === LF || b[at] === 0) return badAnswer(conn, 'the answer is not HTTP/1.1');
    }
    let contentLength: string | undefined;
    let transferEncoding: string | undefined;
    let connection = '';
    let keepAlive: string | undefined;
    let retryAfter: string | undefined;
    let location: string | undefined;
    // `at` is on the CR ending the previous line (or at `end`).
    while (at < end) {
      if (b[at + 1] !== LF) return badAnswer(conn, 'a malformed header line in the answer');
      const start = at + 2;
      let colon = start;
      while (colon < end && TCHAR[b[colon]!] === 1) colon++;
      if (colon === start || colon >= end || b[colon] !== 0x3a) return badAnswer(conn, 'a malformed header line in the answer');
      let lineEnd = colon + 1;
      for (; lineEnd < end; lineEnd++) {
        const c = b[lineEnd]!;
        if (c === CR) break;
        if (c === LF || c === 0) return badAnswer(conn, 'a malformed header value in the answer');
      }
      const name = wantedName(b, start, colon);
      if (name !== undefined) {
        let vs = colon + 1;
        let ve = lineEnd;
        while (vs < ve && (b[vs] === 0x20 || b[vs] === 0x09)) vs++;
        while (ve > vs && (b[ve - 1] === 0x20 || b[ve - 1] === 0x09)) ve--;
        const value = b.toString(name === LOCATION || name === RETRY_AFTER ? 'utf8' : 'latin1', vs, ve);
        if (name === CONTENT_LENGTH) {
          if (contentLength !== undefined && contentLength !== value)
            return badAnswer(conn, 'conflicting Content-Length headers in the answer');
          contentLength = value;
        } else if (name === TRANSFER_ENCODING) transferEncoding = transferEncoding === undefined ? value : `${transferEncoding}, ${value}`;
        else if (name === CONNECTION) connection += `,${value.toLowerCase()}`;
        else if (name === KEEP_ALIVE) keepAlive = value;
        else if (name === RETRY_AFTER) retryAfter ??= value;
        else location ??= value;
      }
      at = lineEnd;
    }
    if (status < 200) {
      if (status === 101) return badAnswer(conn, 'the receiver switched protocols (101), which no delivery asks for');
      return true; // an interim answer (100 Continue, 103): the real one follows
    }
    ex.status = status;
    ex.retryAfter = retryAfter;
    ex.location = location;
    if (minor === 0 || (connection !== '' && connection !== ',keep-alive' && /(^|,)\s*close\s*(,|$)/.test(connection))) ex.reusable = false;
    if (keepAlive !== undefined) ex.keepAliveMs = Math.min(ex.keepAliveMs, keepAliveHintMs(keepAlive));
    if (status === 204 || status === 304) ex.framing = 'none';
    else if (transferEncoding !== undefined) {
      // With Content-Length too, Transfer-Encoding wins (RFC 9112 §6.3) and the connection is not reused.
      if (contentLength !== undefined) ex.reusable = false;
      const codings =
        transferEncoding.length === 7 ? [transferEncoding.toLowerCase()] : transferEncoding.split(',').map((c) => c.trim().toLowerCase());
      if (codings.slice(0, -1).includes('chunked')) return badAnswer(conn, 'chunked applied twice or not last in the answer');
      if (codings[codings.length - 1] === 'chunked') ex.framing = 'chunked';
      else {
        ex.framing = 'close';
        ex.reusable = false;
      }
    } else if (contentLength !== undefined) {
      let length = -1;
      for (const part of contentLength.split(',')) {
        const p = part.trim();
        if (!DIGITS.test(p) || (length >= 0 && Number(p) !== length)) return badAnswer(conn, 'a malformed Content-Length in the answer');
        length = Number(p);
      }
      ex.remaining = length;
      ex.framing = length === 0 ? 'none' : 'length';
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

  /** Reads the chunked body in b[at, to); returns where the answer ended (-1: not yet, -2: settled otherwise). */
  function readChunked(conn: Connection, ex: Exchange, b: Buffer, at: number, to: number): number {
    while (at < to) {
      if (ex.chunk === 'data') {
        const n = Math.min(ex.remaining, to - at);
        if (!keep(ex, b, at, at + n)) {
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
      let lf = at;
      while (lf < to && b[lf] !== LF) lf++;
      const lineTo = lf < to ? lf + 1 : to;
      ex.line += b.toString('latin1', at, lineTo);
      at = lineTo;
      const limit = ex.chunk === 'trailers' ? maxHead : MAX_CHUNK_LINE;
      if (ex.line.length > limit) return badChunk(conn);
      if (lf >= to) continue;
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

  /** Bytes read on a connection: b[0, to) of the shared read buffer, handled before the next read. */
  function onRead(conn: Connection, b: Buffer, to: number): void {
    const ex = conn.exchange;
    if (!ex) return destroy(conn); // bytes nobody asked for (on a kept connection)
    ex.received += to;
    let at = 0;
    while (!ex.inBody) {
      let head: Buffer;
      let start: number;
      let end: number;
      let bodyAt: number;
      if (ex.head === undefined) {
        end = headEnd(b, at, to);
        if (end < 0) {
          if (to - at > maxHead + 3) return void badAnswer(conn, `the answer's head is over ${maxHead} bytes`);
          // The head goes on in the next read: kept in a buffer of its own, which holds the longest allowed.
          ex.head = Buffer.allocUnsafe(maxHead + 4);
          ex.headLength = b.copy(ex.head, 0, at, to);
          return;
        }
        head = b;
        start = at;
        bodyAt = end + 4;
      } else {
        const before = ex.headLength;
        const added = b.copy(ex.head, before, at, to);
        end = headEnd(ex.head, Math.max(0, before - 3), before + added);
        if (end < 0) {
          if (before + added >= ex.head.length) return void badAnswer(conn, `the answer's head is over ${maxHead} bytes`);
          ex.headLength = before + added;
          return;
        }
        head = ex.head;
        start = 0;
        bodyAt = at + end + 4 - before;
        ex.head = undefined;
        ex.headLength = 0;
      }
      if (end - start > maxHead) return void badAnswer(conn, `the answer's head is over ${maxHead} bytes`);
      if (!parseHead(conn, ex, start === 0 ? head : head.subarray(start), end - start)) return;
      at = bodyAt;
      if (!ex.inBody) {
        // An interim answer (1xx): the real one follows, after at most MAX_INTERIM of them.
        if (++ex.interim > MAX_INTERIM) return void badAnswer(conn, `more than ${MAX_INTERIM} interim (1xx) answers`);
        if (at >= to) return;
      }
    }
    switch (ex.framing) {
      case 'none':
        return complete(conn, ex, to - at);
      case 'length': {
        const n = Math.min(ex.remaining, to - at);
        if (!keep(ex, b, at, at + n)) return cut(conn, ex);
        ex.remaining -= n;
        if (ex.remaining === 0) complete(conn, ex, to - at - n);
        return;
      }
      case 'chunked': {
        const end = readChunked(conn, ex, b, at, to);
        if (end >= 0) complete(conn, ex, to - end);
        return;
      }
      case 'close':
        if (!keep(ex, b, at, to)) cut(conn, ex);
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
      conn.connected = true;
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
