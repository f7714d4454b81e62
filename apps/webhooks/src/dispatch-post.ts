import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';

/** What a delivery keeps of an answer. */
export interface Answer {
  status: number;
  /** at most `bodyLimit` bytes */
  body: Buffer;
  retryAfter: string | undefined;
  location: string | undefined;
}

/** Where a POST goes, parsed once per address. */
export interface Target {
  /** scheme, host and port: undici keeps a pool of connections per origin */
  origin: string;
  /** path and query, as the URL parser encoded them */
  path: string;
}

/** The whole exchange took longer than its deadline. */
export class ExchangeTimeoutError extends Error {
  readonly code = 'EXCHANGE_TIMEOUT';
}

/** The answer's body reached the cap: the rest is not read (the connection is closed). */
class CutError extends Error {}

const EMPTY = Buffer.alloc(0);

/** A header's first value, without the whitespace around it (llhttp keeps what trails it). */
const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value)?.trim();

/**
 * One POST through undici's dispatcher with a handler of our own: the answer's status, two headers
 * and at most `bodyLimit` bytes of its body, with no stream or abort signal per request. The whole
 * exchange is cut at `timeoutMs` (undici's own timeouts measure the head and the gaps between body
 * chunks, not the whole); an answer longer than the cap is cut there and its connection closed, so
 * a huge or endless answer costs `bodyLimit` bytes of memory. Interim (1xx) answers undici passes on
 * (103) are skipped. Rejects with undici's error, or ExchangeTimeoutError.
 */
export function dispatchPost(
  dispatcher: Dispatcher,
  target: Target,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  bodyLimit: number,
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let reason: Error | undefined;
    let settled = false;
    let status = 0;
    let retryAfter: string | undefined;
    let location: string | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error: Error | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) return reject(error);
      const kept = chunks.length === 0 ? EMPTY : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      resolve({ status, body: kept, retryAfter, location });
    };
    const timer = setTimeout(() => {
      reason = new ExchangeTimeoutError(`no complete answer within ${timeoutMs / 1000} s`);
      // Before the request is on a connection there is nothing to abort yet: onRequestStart does.
      controller?.abort(reason);
      settle(reason);
    }, timeoutMs);
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (reason) c.abort(reason);
      },
      onResponseStart(_c, statusCode, answerHeaders: IncomingHttpHeaders) {
        if (statusCode < 200) return; // 103 Early Hints: the answer comes after
        status = statusCode;
        retryAfter = first(answerHeaders['retry-after']);
        location = first(answerHeaders.location);
      },
      onResponseData(c, chunk) {
        const room = bodyLimit - size;
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        size += Math.min(chunk.length, room);
        if (size < bodyLimit) return;
        // The cap is reached: the answer is what we keep; aborting closes the connection unread.
        settle(undefined);
        c.abort(new CutError('the answer is over the cap'));
      },
      onResponseEnd() {
        settle(undefined);
      },
      onResponseError(_c, error) {
        settle(error);
      },
    };
    dispatcher.dispatch({ origin: target.origin, path: target.path, method: 'POST', body, headers }, handler);
  });
}
