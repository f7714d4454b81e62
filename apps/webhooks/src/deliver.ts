import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { isPrivateAddress } from '@platform/domain';

/** decisions §11.6: the receiver's answer is kept up to 4 KB. */
export const RESPONSE_BODY_LIMIT = 4096;

export interface AttemptResult {
  /** a 2xx answer within the time limit (decisions §11.4) */
  ok: boolean;
  /** the receiver's status; null when no answer came */
  status: number | null;
  durationMs: number;
  /** for a person to read; null on success */
  error: string | null;
  /** at most RESPONSE_BODY_LIMIT bytes of the answer */
  responseBody: string | null;
  /** the answer's Retry-After header, as sent */
  retryAfter: string | undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
/** dns.lookup's shape, with `all: true` always asked for. */
export type Resolver = (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, callback) => dnsLookup(hostname, { all: true, verbatim: true }, callback);

class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
}

function privateMessage(host: string, ip: string): string {
  const what = host === ip ? `${ip} is` : `${host} resolves to ${ip},`;
  return `refused: ${what} a private, loopback or link-local address (set PLATFORM_WEBHOOK_ALLOW_PRIVATE=true to allow it)`;
}

/**
 * decisions §11.2: the resolved address is checked when the connection is made, so a name that
 * resolved to a public address when the subscription was written and to a private one now (DNS
 * rebinding) is refused. Any private result refuses the name.
 */
export function guardedLookup(resolve: Resolver, refusePrivate: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, (error, addresses) => {
      if (error) return callback(error, []);
      const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
      const bad = refusePrivate ? wanted.find((a) => isPrivateAddress(a.address)) : undefined;
      if (bad) return callback(new PrivateAddressError(privateMessage(hostname, bad.address)), []);
      if (wanted.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      if (options.all) return callback(null, wanted);
      callback(null, wanted[0]!.address, wanted[0]!.family);
    });
  };
}

export interface DeliveryAgentOptions {
  allowPrivate: boolean;
  connectTimeoutMs: number;
  timeoutMs: number;
  /** where names are resolved (tests pass their own); default the system's resolver */
  resolve?: Resolver;
}

export interface DeliveryAgent {
  post(url: string, body: string, headers: Record<string, string>): Promise<AttemptResult>;
  close(): Promise<void>;
}

/** The host part of a URL as a name or a bare IP (brackets of IPv6 literals removed). */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function describe(error: unknown, timeoutMs: number, connectTimeoutMs: number): string {
  const e = error as { code?: string; name?: string; message?: string; cause?: unknown };
  const inner = (e.cause as { code?: string; message?: string } | undefined) ?? undefined;
  const code = e.code ?? inner?.code;
  if (code === 'EPRIVATEADDRESS') return e.message ?? inner?.message ?? 'refused: private address';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return `connect timeout: no connection within ${connectTimeoutMs / 1000} s`;
  if (
    e.name === 'AbortError' ||
    e.name === 'TimeoutError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_ABORTED'
  ) {
    return `timeout: no complete answer within ${timeoutMs / 1000} s`;
  }
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset by the receiver';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host not found (${code})`;
  return `${code ? code + ': ' : ''}${e.message ?? String(error)}`.slice(0, 500);
}

/** Text for a database column: PostgreSQL text cannot hold NUL. */
function storable(text: string): string {
  return text.replaceAll(String.fromCharCode(0), '\uFFFD');
}

/**
 * One HTTP agent per sender: keep-alive connections per origin, 1 s to connect, the resolved
 * address checked on every new connection (unless private targets are allowed). `post` never throws:
 * every outcome is an AttemptResult. Redirects are not followed (a 3xx is a failed attempt).
 */
export function createDeliveryAgent(options: DeliveryAgentOptions): DeliveryAgent {
  const { allowPrivate, connectTimeoutMs, timeoutMs } = options;
  // Without a resolver of its own and with private targets allowed, Node's default lookup is used.
  const lookup = !allowPrivate || options.resolve ? guardedLookup(options.resolve ?? systemResolver, !allowPrivate) : undefined;
  const agent = new Agent({
    connect: { timeout: connectTimeoutMs, ...(lookup ? { lookup } : {}) },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 4000,
  });

  const targets = new Map<string, Target | string>();
  /** The address parsed and checked once (a subscription's address is sent to again and again). */
  function targetOf(address: string): Target | string {
    let target = targets.get(address);
    if (target === undefined) {
      target = parseTarget(address, allowPrivate);
      if (targets.size >= TARGET_CACHE_SIZE) targets.clear();
      targets.set(address, target);
    }
    return target;
  }

  async function post(address: string, body: string, headers: Record<string, string>): Promise<AttemptResult> {
    const started = performance.now();
    const done = (partial: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({
      ...partial,
      durationMs: Math.round(performance.now() - started),
    });
    const target = targetOf(address);
    if (typeof target === 'string') return done({ ok: false, status: null, error: target, responseBody: null, retryAfter: undefined });
    try {
      const answer = await dispatchPost(agent, target, body, headers, timeoutMs);
      const ok = answer.status >= 200 && answer.status < 300;
      let error: string | null = null;
      if (!ok) {
        const { location } = answer;
        error =
          answer.status >= 300 && answer.status < 400
            ? `HTTP ${answer.status}: redirect${location !== undefined ? ` to ${storable(location).slice(0, 300)}` : ''} not followed`
            : `HTTP ${answer.status}`;
      }
      return done({ ok, status: answer.status, error, responseBody: storable(answer.body), retryAfter: answer.retryAfter });
    } catch (error) {
      return done({
        ok: false,
        status: null,
        error: storable(describe(error, timeoutMs, connectTimeoutMs)),
        responseBody: null,
        retryAfter: undefined,
      });
    }
  }

  return {
    post,
    async close() {
      await agent.close();
    },
  };
}

/** Addresses parsed and checked, kept per agent (cleared when full). */
const TARGET_CACHE_SIZE = 10_000;

/** Where a POST goes: undici's origin and path. */
interface Target {
  origin: string;
  path: string;
}

/** The address as a Target, or why it is refused (decisions §11.2). */
function parseTarget(address: string, allowPrivate: boolean): Target | string {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return 'refused: the address is not a valid URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    const why =
      url.protocol === 'http:'
        ? 'http:// addresses need PLATFORM_WEBHOOK_ALLOW_PRIVATE=true (https:// only)'
        : `the scheme ${url.protocol} is not https`;
    return `refused: ${why}`;
  }
  const host = bareHost(url);
  // An IP literal is never looked up, so the connect-time check cannot see it: check it here.
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) return privateMessage(host, host);
  return { origin: url.origin, path: `${url.pathname}${url.search}` };
}

interface Answer {
  status: number;
  /** at most RESPONSE_BODY_LIMIT bytes */
  body: string;
  retryAfter: string | undefined;
  location: string | undefined;
}

/** The first value of a header in undici's raw list (names in any case), as text. */
function rawHeader(raw: Buffer[], name: string): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i]!;
    if (key.length === name.length && key.toString('latin1').toLowerCase() === name) return raw[i + 1]!.toString('utf8');
  }
  return undefined;
}

/**
 * One POST through undici's dispatcher with a handler of our own: the answer's status, two headers
 * and at most RESPONSE_BODY_LIMIT bytes of its body, with no stream, abort signal or header object
 * per request (about half the CPU of undici's `request()` on this path, measured in bench/webhooks).
 * The whole exchange is cut at `timeoutMs`; an answer longer than the cap is cut there and its
 * connection closed, so a huge or endless answer costs 4 KB of memory.
 */
function dispatchPost(agent: Agent, target: Target, body: string, headers: Record<string, string>, timeoutMs: number): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    let abort: ((reason?: Error) => void) | undefined;
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
      if (error) reject(error);
      else resolve({ status, body: Buffer.concat(chunks, size).toString('utf8'), retryAfter, location });
    };
    const timer = setTimeout(() => {
      reason = Object.assign(new Error(`no complete answer within ${timeoutMs} ms`), { name: 'TimeoutError' });
      abort?.(reason);
      settle(reason);
    }, timeoutMs);
    const handler: Dispatcher.DispatchHandler = {
      onConnect(abortRequest) {
        if (reason) return abortRequest(reason);
        abort = abortRequest;
      },
      onHeaders(statusCode, rawHeaders) {
        if (statusCode < 200) return true; // 1xx: the answer comes after
        status = statusCode;
        retryAfter = rawHeader(rawHeaders, 'retry-after');
        location = rawHeader(rawHeaders, 'location');
        return true;
      },
      onData(chunk) {
        const room = RESPONSE_BODY_LIMIT - size;
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        size += Math.min(chunk.length, room);
        if (size < RESPONSE_BODY_LIMIT) return true;
        // The cap is reached: the answer is what we keep; the rest is not read (the connection closes).
        settle(undefined);
        abort?.(new Error('answer over the cap'));
        return false;
      },
      onComplete() {
        settle(undefined);
      },
      onError(error) {
        settle(error);
      },
    };
    try {
      agent.dispatch({ origin: target.origin, path: target.path, method: 'POST', body, headers }, handler);
    } catch (error) {
      settle(error as Error);
    }
  });
}
