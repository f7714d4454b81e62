import type { Http1Answer } from './http1';

/**
 * The answer side of the sender's HTTP/1.1 client (http1.ts): one AnswerReader per exchange reads
 * the bytes of its connection as they come, byte by byte (only the headers the client reads become
 * strings), and says when the answer is complete, cut at bodyLimit, or refused. The framing and
 * what is refused: http1.ts's top comment and docs/webhooks-sender.md "HTTP client".
 */

export const DEFAULT_MAX_HEAD = 16 * 1024;
const MAX_CHUNK_LINE = 1024;
/** Interim (1xx) answers one exchange takes before its answer. */
const MAX_INTERIM = 10;
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;[^\0\r\n]*)?$/;
const DIGITS = /^\d{1,15}$/;
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

/** read(): the answer needs more bytes. */
export const READ_MORE = -1;
/** read(): the body reached bodyLimit; the answer is what was kept (the rest is not read). */
export const READ_CUT = -2;
/** read(): the answer is refused (AnswerReader.error says why). */
export const READ_BAD = -3;

type Framing = 'none' | 'length' | 'chunked' | 'close';
type ChunkState = 'size' | 'data' | 'data-end' | 'trailers';

export class AnswerReader {
  /** why read() returned READ_BAD */
  error = '';
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
  /** the connection may carry another exchange after this answer */
  reusable = true;
  /** how long the connection may be kept after it (shortened by a `Keep-Alive: timeout=N`) */
  keepAliveMs: number;
  /** bytes of answer received: a kept connection closed before any may be retried */
  received = 0;

  constructor(
    private readonly maxHead: number,
    private readonly bodyLimit: number,
    keepAliveMs: number,
  ) {
    this.keepAliveMs = keepAliveMs;
  }

  /** An answer read to the close is complete when the receiver closes. */
  get endsAtClose(): boolean {
    return this.inBody && this.framing === 'close';
  }

  answer(): Http1Answer {
    const body = this.kept.length === 0 ? EMPTY : this.kept.length === 1 ? this.kept[0]! : Buffer.concat(this.kept, this.keptBytes);
    return { status: this.status, body, retryAfter: this.retryAfter, location: this.location };
  }

  /**
   * Reads b[0, to) (the shared read buffer: what is kept is copied). Returns the bytes after the
   * answer when it is complete (0 or more), else READ_MORE, READ_CUT (the body reached bodyLimit:
   * the answer is what was kept) or READ_BAD (`error` says why).
   */
  read(b: Buffer, to: number): number {
    this.received += to;
    let at = 0;
    while (!this.inBody) {
      let head: Buffer;
      let start: number;
      let end: number;
      let bodyAt: number;
      if (this.head === undefined) {
        end = headEnd(b, at, to);
        if (end < 0) {
          if (to - at > this.maxHead + 3) return this.refuse(`the answer's head is over ${this.maxHead} bytes`);
          // The head goes on in the next read: kept in a buffer of its own, which holds the longest allowed.
          this.head = Buffer.allocUnsafe(this.maxHead + 4);
          this.headLength = b.copy(this.head, 0, at, to);
          return READ_MORE;
        }
        head = b;
        start = at;
        bodyAt = end + 4;
      } else {
        const before = this.headLength;
        const added = b.copy(this.head, before, at, to);
        end = headEnd(this.head, Math.max(0, before - 3), before + added);
        if (end < 0) {
          if (before + added >= this.head.length) return this.refuse(`the answer's head is over ${this.maxHead} bytes`);
          this.headLength = before + added;
          return READ_MORE;
        }
        head = this.head;
        start = 0;
        bodyAt = at + end + 4 - before;
        this.head = undefined;
        this.headLength = 0;
      }
      if (end - start > this.maxHead) return this.refuse(`the answer's head is over ${this.maxHead} bytes`);
      if (!this.parseHead(start === 0 ? head : head.subarray(start), end - start)) return READ_BAD;
      at = bodyAt;
      if (!this.inBody) {
        // An interim answer (1xx): the real one follows, after at most MAX_INTERIM of them.
        if (++this.interim > MAX_INTERIM) return this.refuse(`more than ${MAX_INTERIM} interim (1xx) answers`);
        if (at >= to) return READ_MORE;
      }
    }
    switch (this.framing) {
      case 'none':
        return to - at;
      case 'length': {
        const n = Math.min(this.remaining, to - at);
        if (!this.keep(b, at, at + n)) return READ_CUT;
        this.remaining -= n;
        return this.remaining === 0 ? to - at - n : READ_MORE;
      }
      case 'chunked': {
        const end = this.readChunked(b, at, to);
        return end >= 0 ? to - end : end;
      }
      case 'close':
        return this.keep(b, at, to) ? READ_MORE : READ_CUT;
    }
  }

  /** Keeps what fits of b[from, to) (copied: the read buffer is reused); false once this.bodyLimit is reached. */
  private keep(b: Buffer, from: number, to: number): boolean {
    if (to <= from) return true;
    const room = this.bodyLimit - this.keptBytes;
    const n = Math.min(room, to - from);
    if (n > 0) {
      const part = Buffer.allocUnsafe(n);
      b.copy(part, 0, from, from + n);
      this.kept.push(part);
      this.keptBytes += n;
    }
    return to - from < room;
  }

  /**
   * Parses the status line and headers in b[0, end) (end: where "\r\n\r\n" starts), byte by byte:
   * only the headers the client reads become strings. False when the head was refused (the answer is
   * refused: `error`).
   */
  private parseHead(b: Buffer, end: number): boolean {
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
      return this.bad('the answer is not HTTP/1.1');
    const minor = b[7]! - 0x30;
    const d0 = b[9]! - 0x30;
    const d1 = b[10]! - 0x30;
    const d2 = b[11]! - 0x30;
    if (d0 < 1 || d0 > 9 || d1 < 0 || d1 > 9 || d2 < 0 || d2 > 9) return this.bad('the answer is not HTTP/1.1');
    const status = d0 * 100 + d1 * 10 + d2;
    let at = 12;
    if (at < end && b[at] !== CR) {
      if (b[at] !== 0x20) return this.bad('the answer is not HTTP/1.1');
      for (; at < end && b[at] !== CR; at++) if (b[at] === LF || b[at] === 0) return this.bad('the answer is not HTTP/1.1');
    }
    let contentLength: string | undefined;
    let transferEncoding: string | undefined;
    let connection = '';
    let keepAlive: string | undefined;
    let retryAfter: string | undefined;
    let location: string | undefined;
    // `at` is on the CR ending the previous line (or at `end`).
    while (at < end) {
      if (b[at + 1] !== LF) return this.bad('a malformed header line in the answer');
      const start = at + 2;
      let colon = start;
      while (colon < end && TCHAR[b[colon]!] === 1) colon++;
      if (colon === start || colon >= end || b[colon] !== 0x3a) return this.bad('a malformed header line in the answer');
      let lineEnd = colon + 1;
      for (; lineEnd < end; lineEnd++) {
        const c = b[lineEnd]!;
        if (c === CR) break;
        if (c === LF || c === 0) return this.bad('a malformed header value in the answer');
      }
      const name = wantedName(b, start, colon);
      if (name !== undefined) {
        let vs = colon + 1;
        let ve = lineEnd;
        while (vs < ve && (b[vs] === 0x20 || b[vs] === 0x09)) vs++;
        while (ve > vs && (b[ve - 1] === 0x20 || b[ve - 1] === 0x09)) ve--;
        const value = b.toString(name === LOCATION || name === RETRY_AFTER ? 'utf8' : 'latin1', vs, ve);
        if (name === CONTENT_LENGTH) {
          if (contentLength !== undefined && contentLength !== value) return this.bad('conflicting Content-Length headers in the answer');
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
      if (status === 101) return this.bad('the receiver switched protocols (101), which no delivery asks for');
      return true; // an interim answer (100 Continue, 103): the real one follows
    }
    this.status = status;
    this.retryAfter = retryAfter;
    this.location = location;
    if (minor === 0 || (connection !== '' && connection !== ',keep-alive' && /(^|,)\s*close\s*(,|$)/.test(connection)))
      this.reusable = false;
    if (keepAlive !== undefined) this.keepAliveMs = Math.min(this.keepAliveMs, keepAliveHintMs(keepAlive));
    if (status === 204 || status === 304) this.framing = 'none';
    else if (transferEncoding !== undefined) {
      // With Content-Length too, Transfer-Encoding wins (RFC 9112 §6.3) and the connection is not reused.
      if (contentLength !== undefined) this.reusable = false;
      const codings =
        transferEncoding.length === 7 ? [transferEncoding.toLowerCase()] : transferEncoding.split(',').map((c) => c.trim().toLowerCase());
      if (codings.slice(0, -1).includes('chunked')) return this.bad('chunked applied twice or not last in the answer');
      if (codings[codings.length - 1] === 'chunked') this.framing = 'chunked';
      else {
        this.framing = 'close';
        this.reusable = false;
      }
    } else if (contentLength !== undefined) {
      let length = -1;
      for (const part of contentLength.split(',')) {
        const p = part.trim();
        if (!DIGITS.test(p) || (length >= 0 && Number(p) !== length)) return this.bad('a malformed Content-Length in the answer');
        length = Number(p);
      }
      this.remaining = length;
      this.framing = length === 0 ? 'none' : 'length';
    } else {
      this.framing = 'close';
      this.reusable = false;
    }
    this.inBody = true;
    return true;
  }

  private bad(message: string): false {
    this.error = message;
    return false;
  }

  private refuse(message: string): number {
    this.error = message;
    return READ_BAD;
  }

  /** Reads the chunked body in b[at, to); returns where the answer ended, or READ_MORE, READ_CUT or READ_BAD. */
  private readChunked(b: Buffer, at: number, to: number): number {
    while (at < to) {
      if (this.chunk === 'data') {
        const n = Math.min(this.remaining, to - at);
        if (!this.keep(b, at, at + n)) return READ_CUT;
        this.remaining -= n;
        at += n;
        if (this.remaining === 0) {
          this.chunk = 'data-end';
          this.line = '';
        }
        continue;
      }
      // A line: the chunk's size, the CRLF after its data, or a trailer.
      let lf = at;
      while (lf < to && b[lf] !== LF) lf++;
      const lineTo = lf < to ? lf + 1 : to;
      this.line += b.toString('latin1', at, lineTo);
      at = lineTo;
      const limit = this.chunk === 'trailers' ? this.maxHead : MAX_CHUNK_LINE;
      if (this.line.length > limit) return this.badChunk();
      if (lf >= to) continue;
      if (!this.line.endsWith('\r\n')) return this.badChunk();
      const line = this.line.slice(0, -2);
      this.line = '';
      if (this.chunk === 'data-end') {
        if (line !== '') return this.badChunk();
        this.chunk = 'size';
      } else if (this.chunk === 'size') {
        const size = CHUNK_SIZE.exec(line);
        if (!size) return this.badChunk();
        this.remaining = parseInt(size[1]!, 16);
        this.chunk = this.remaining === 0 ? 'trailers' : 'data';
      } else {
        this.trailerBytes += line.length + 2;
        if (this.trailerBytes > this.maxHead) return this.badChunk();
        if (line === '') return at;
      }
    }
    return READ_MORE;
  }

  private badChunk(): number {
    this.error = 'a malformed chunked body in the answer';
    return READ_BAD;
  }
}

const EMPTY = Buffer.alloc(0);
