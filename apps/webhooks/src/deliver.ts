import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
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

  async function post(address: string, body: string, headers: Record<string, string>): Promise<AttemptResult> {
    const started = performance.now();
    const done = (partial: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({
      ...partial,
      durationMs: Math.round(performance.now() - started),
    });
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      return done({ ok: false, status: null, error: 'refused: the address is not a valid URL', responseBody: null, retryAfter: undefined });
    }
    if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
      const why =
        url.protocol === 'http:'
          ? 'http:// addresses need PLATFORM_WEBHOOK_ALLOW_PRIVATE=true (https:// only)'
          : `the scheme ${url.protocol} is not https`;
      return done({ ok: false, status: null, error: `refused: ${why}`, responseBody: null, retryAfter: undefined });
    }
    const host = bareHost(url);
    // An IP literal is never looked up, so the connect-time check cannot see it: check it here.
    if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
      return done({ ok: false, status: null, error: privateMessage(host, host), responseBody: null, retryAfter: undefined });
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const res = await request(url, {
        method: 'POST',
        body,
        headers,
        dispatcher: agent,
        signal: controller.signal,
      });
      const responseBody = await readCapped(res.body);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      const retryAfter = res.headers['retry-after'];
      let error: string | null = null;
      if (!ok) {
        const location = res.headers.location;
        error =
          res.statusCode >= 300 && res.statusCode < 400
            ? `HTTP ${res.statusCode}: redirect${typeof location === 'string' ? ` to ${storable(location).slice(0, 300)}` : ''} not followed`
            : `HTTP ${res.statusCode}`;
      }
      return done({
        ok,
        status: res.statusCode,
        error,
        responseBody: storable(responseBody),
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      });
    } catch (error) {
      return done({
        ok: false,
        status: null,
        error: storable(describe(error, timeoutMs, connectTimeoutMs)),
        responseBody: null,
        retryAfter: undefined,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    post,
    async close() {
      await agent.close();
    },
  };
}

/**
 * Reads at most RESPONSE_BODY_LIMIT bytes of an answer and drops the rest unread (the connection
 * is closed), so a huge or endless answer costs 4 KB of memory.
 */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const room = RESPONSE_BODY_LIMIT - size;
    chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    size += Math.min(chunk.length, room);
    if (size >= RESPONSE_BODY_LIMIT) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}
