import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { isLocalhostName, isPrivateAddress } from '@platform/domain/webhooks';
import { LRUCache } from 'lru-cache';
import { dispatchPost, type Target } from './dispatch-post';
import { createDispatcher } from './dispatcher';

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
  /**
   * PLATFORM_WEBHOOK_PROXY: an HTTP CONNECT proxy every delivery goes through. The proxy resolves
   * the names then, so it is the fence against private targets; the sender still refuses IP
   * literals and `localhost` names it can judge itself.
   */
  proxy?: string;
  /** where names are resolved (tests pass their own); default the system's resolver */
  resolve?: Resolver;
  /** extra TLS options (tests: a CA of their own; operators use NODE_EXTRA_CA_CERTS) */
  tls?: { ca?: string | Buffer };
  /** how long an idle connection is kept for the next POST to its origin (default 4 s; tests shorten it) */
  keepAliveMs?: number;
}

export interface DeliveryAgent {
  post(url: string, body: string, headers: Record<string, string>): Promise<AttemptResult>;
  close(): Promise<void>;
}

/** undici's SocketError messages, as a person reads them. */
const SOCKET_ERRORS: Record<string, string> = {
  'other side closed': 'connection closed by the receiver before a complete answer',
  closed: 'connection closed by the receiver before a complete answer',
  // undici's only "bad response" on a request of ours: a 100 Continue, which we never ask for.
  'bad response': 'bad answer: an interim 100 Continue, which no delivery asks for',
  'bad upgrade': 'bad answer: the receiver switched protocols (101), which no delivery asks for',
};

function describe(error: unknown, timeoutMs: number, connectTimeoutMs: number, viaProxy: boolean): string {
  const e = error as { code?: string; message?: string };
  const code = e.code;
  const message = e.message ?? String(error);
  switch (code) {
    case 'EPRIVATEADDRESS':
      return message;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `connect timeout: no connection within ${connectTimeoutMs / 1000} s`;
    case 'EXCHANGE_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return `timeout: no complete answer within ${timeoutMs / 1000} s`;
    case 'UND_ERR_SOCKET':
      return SOCKET_ERRORS[message] ?? `connection failed: ${message}`;
    case 'UND_ERR_HEADERS_OVERFLOW':
      return "bad answer: the answer's head is over 16 KiB";
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
      return 'bad answer: the body is not as long as its Content-Length';
    case 'UND_ERR_INVALID_ARG':
      return `refused: ${message}`;
    case 'UND_ERR_CLOSED':
    case 'UND_ERR_DESTROYED':
      return 'not sent: the sender is stopping';
    case 'UND_ERR_ABORTED': {
      // ProxyAgent: "Proxy response (403) !== 200 when HTTP Tunneling"
      const proxyStatus = /^Proxy response \((\d+)\)/.exec(message)?.[1];
      if (proxyStatus) return `proxy refused the tunnel: HTTP ${proxyStatus}`;
      break;
    }
    case 'ECONNREFUSED':
      return viaProxy ? 'connection to the proxy refused' : 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset by the receiver';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${viaProxy ? 'proxy host' : 'host'} not found (${code})`;
  }
  // llhttp's refusals: "Response does not match the HTTP/1.1 protocol (Invalid header value char)"
  if ((error as Error).name === 'HTTPParserError') return `bad answer: ${message}`;
  return `${code ? code + ': ' : ''}${message}`.slice(0, 500);
}

/** Text for a database column: PostgreSQL text cannot hold NUL. */
function storable(text: string): string {
  return text.replaceAll(String.fromCharCode(0), '\uFFFD');
}

/**
 * One HTTP agent per sender, on undici (dispatcher.ts): keep-alive connections per origin, 1 s to
 * connect, 5 s for the whole answer, the first 4 KB of its body kept, the resolved address checked
 * on every new connection (unless private targets are allowed, or a proxy resolves the names).
 * `post` never throws: every outcome is an AttemptResult. Redirects are not followed (a 3xx is a
 * failed attempt).
 */
export function createDeliveryAgent(options: DeliveryAgentOptions): DeliveryAgent {
  const { allowPrivate, connectTimeoutMs, timeoutMs, proxy } = options;
  // Without a resolver of its own and with private targets allowed, Node's default lookup is used.
  const lookup = !allowPrivate || options.resolve ? guardedLookup(options.resolve ?? systemResolver, !allowPrivate) : undefined;
  const dispatcher = createDispatcher({
    connectTimeoutMs,
    timeoutMs,
    keepAliveMs: options.keepAliveMs ?? 4000,
    ...(lookup && proxy === undefined ? { lookup } : {}),
    ...(proxy !== undefined ? { proxy } : {}),
    ...(options.tls?.ca !== undefined ? { ca: options.tls.ca } : {}),
  });
  const viaProxy = proxy !== undefined;

  /** Addresses parsed and checked once (a subscription's address is sent to again and again). */
  const targets = new LRUCache<string, Target | string>({ max: TARGET_CACHE_SIZE });
  function targetOf(address: string): Target | string {
    let target = targets.get(address);
    if (target === undefined) targets.set(address, (target = parseTarget(address, allowPrivate, viaProxy)));
    return target;
  }

  /** An outcome, timed from `started` (one object a POST: this runs for every delivery). */
  function result(
    started: number,
    ok: boolean,
    status: number | null,
    error: string | null,
    responseBody: string | null,
    retryAfter: string | undefined,
  ): AttemptResult {
    return { ok, status, durationMs: Math.round(performance.now() - started), error, responseBody, retryAfter };
  }

  async function post(address: string, body: string, headers: Record<string, string>): Promise<AttemptResult> {
    const started = performance.now();
    const target = targetOf(address);
    if (typeof target === 'string') return result(started, false, null, target, null, undefined);
    try {
      const answer = await dispatchPost(dispatcher, target, body, headers, timeoutMs, RESPONSE_BODY_LIMIT);
      const { status } = answer;
      const ok = status >= 200 && status < 300;
      let error: string | null = null;
      if (!ok) {
        const { location } = answer;
        error =
          status >= 300 && status < 400
            ? `HTTP ${status}: redirect${location !== undefined ? ` to ${storable(location).slice(0, 300)}` : ''} not followed`
            : `HTTP ${status}`;
      }
      const text = answer.body.length === 0 ? '' : storable(answer.body.toString('utf8'));
      return result(started, ok, status, error, text, answer.retryAfter);
    } catch (error) {
      return result(started, false, null, storable(describe(error, timeoutMs, connectTimeoutMs, viaProxy)), null, undefined);
    }
  }

  let closed: Promise<void> | undefined;
  return {
    post,
    // Once: undici refuses to close a dispatcher twice.
    close: () => (closed ??= dispatcher.close()),
  };
}

/** Addresses parsed and checked, kept per agent (least recently used go first). */
const TARGET_CACHE_SIZE = 10_000;

/**
 * The address as a Target, or why it is refused (decisions §11.2). An IP literal is never looked
 * up, so the connect-time check cannot see it: it is checked here. Through a proxy names are not
 * looked up here either (the proxy resolves them): `localhost` names, which name the proxy's own
 * machine whatever DNS says, are refused here too.
 */
function parseTarget(address: string, allowPrivate: boolean, viaProxy: boolean): Target | string {
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
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) return privateMessage(host, host);
  if (!allowPrivate && viaProxy && isLocalhostName(host)) {
    return `refused: ${host} names the machine itself (set PLATFORM_WEBHOOK_ALLOW_PRIVATE=true to allow it)`;
  }
  return { origin: url.origin, path: `${url.pathname}${url.search}` };
}
