import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { isPrivateAddress } from '@platform/domain';
import { createHttp1Client, http1Target, type Http1Target } from './http1';

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
  /** extra TLS options (tests: a CA of their own; operators use NODE_EXTRA_CA_CERTS) */
  tls?: { ca?: string | Buffer };
}

export interface DeliveryAgent {
  post(url: string, body: string, headers: Record<string, string>): Promise<AttemptResult>;
  close(): Promise<void>;
}

function describe(error: unknown, timeoutMs: number, connectTimeoutMs: number): string {
  const e = error as { code?: string; message?: string };
  const code = e.code;
  if (code === 'EPRIVATEADDRESS') return e.message ?? 'refused: private address';
  if (code === 'CONNECT_TIMEOUT') return `connect timeout: no connection within ${connectTimeoutMs / 1000} s`;
  if (code === 'TIMEOUT') return `timeout: no complete answer within ${timeoutMs / 1000} s`;
  if (code === 'BAD_ANSWER') return `bad answer: ${e.message ?? ''}`;
  if (code === 'BAD_REQUEST') return `refused: ${e.message ?? ''}`;
  if (code === 'CLOSED') return 'connection closed by the receiver before a complete answer';
  if (code === 'CLIENT_CLOSED') return 'not sent: the sender is stopping';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection reset by the receiver';
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
  const client = createHttp1Client({
    connectTimeoutMs,
    timeoutMs,
    keepAliveMs: 4000,
    bodyLimit: RESPONSE_BODY_LIMIT,
    ...(lookup ? { lookup } : {}),
    ...(options.tls ? { tls: options.tls } : {}),
  });

  const targets = new Map<string, Http1Target | string>();
  /** The address parsed and checked once (a subscription's address is sent to again and again). */
  function targetOf(address: string): Http1Target | string {
    let target = targets.get(address);
    if (target === undefined) {
      target = parseTarget(address, allowPrivate);
      if (targets.size >= TARGET_CACHE_SIZE) targets.clear();
      targets.set(address, target);
    }
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
      const answer = await client.post(target, body, headers);
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
      return result(started, false, null, storable(describe(error, timeoutMs, connectTimeoutMs)), null, undefined);
    }
  }

  return {
    post,
    close: () => client.close(),
  };
}

/** Addresses parsed and checked, kept per agent (cleared when full). */
const TARGET_CACHE_SIZE = 10_000;

/** The address as a Target, or why it is refused (decisions §11.2). */
function parseTarget(address: string, allowPrivate: boolean): Http1Target | string {
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
  const target = http1Target(url);
  const { host } = target;
  // An IP literal is never looked up, so the connect-time check cannot see it: check it here.
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) return privateMessage(host, host);
  return target;
}
