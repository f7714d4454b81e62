import type { LookupFunction } from 'node:net';
import { Agent, errors, Pool, ProxyAgent, type buildConnector, type Dispatcher } from 'undici';

export interface DispatcherOptions {
  connectTimeoutMs: number;
  /** backstops for undici's own timers; the whole exchange is cut by the caller at this */
  timeoutMs: number;
  /** how long an idle connection is kept for the next POST to its origin */
  keepAliveMs: number;
  /** resolves names at connect time and refuses private results (decisions §11.2); none: Node's */
  lookup?: LookupFunction;
  /** an HTTP CONNECT proxy every delivery goes through (PLATFORM_WEBHOOK_PROXY) */
  proxy?: string;
  /** the CAs receivers' certificates are checked against (tests); default Node's (NODE_EXTRA_CA_CERTS adds) */
  ca?: string | Buffer;
}

/**
 * undici's dispatcher for deliveries: a Pool per origin (undici's Agent), keep-alive, HTTP/1.1 only,
 * no pipelining, no limit of connections per origin (the caps per host and per app are the
 * sender's, counted across senders in the database). Redirects are not followed: nothing here adds
 * undici's redirect interceptor.
 *
 * Directly: `connect` has the 1 s budget (DNS lookup, TCP and TLS handshake: undici's connect
 * timeout runs until `secureConnect`) and the sender's lookup, so the address checked is the
 * address connected to.
 *
 * Through a proxy (undici's ProxyAgent, a CONNECT tunnel per connection, for http:// targets too):
 * the proxy resolves the name and connects, so the sender cannot see the address; the caller
 * refuses what it can (IP literals, `localhost` names) and the proxy is the fence for the rest.
 * The 1 s budget covers the proxy connection, the CONNECT answer and the receiver's TLS handshake
 * through the tunnel together (a timer per new connection, not per request).
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const common = {
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: options.keepAliveMs,
  };
  const tls = options.ca !== undefined ? { ca: options.ca } : {};
  if (options.proxy === undefined) {
    return new Agent({
      ...common,
      connect: { timeout: options.connectTimeoutMs, ...(options.lookup ? { lookup: options.lookup } : {}), ...tls },
    });
  }
  const budget = options.connectTimeoutMs;
  return new ProxyAgent({
    ...common,
    uri: options.proxy,
    proxyTls: { timeout: budget },
    requestTls: { timeout: budget, ...tls },
    // The connection to the proxy: a CONNECT left unanswered fails at the budget, not after
    // undici's default 300 s headers timeout.
    clientFactory: (origin, opts) => new Pool(origin, { ...(opts as Pool.Options), headersTimeout: budget }),
    // Each origin's pool connects through the tunnel under one timer for the whole of it.
    factory: (origin, opts) => {
      const poolOptions = opts as Pool.Options;
      return new Pool(origin, { ...poolOptions, connect: withBudget(poolOptions.connect as buildConnector.connector, budget) });
    },
  });
}

/** `connect` failed with undici's connect timeout unless it has called back within `ms`. */
function withBudget(connect: buildConnector.connector, ms: number): buildConnector.connector {
  return (opts, callback) => {
    let done = false;
    const timer = setTimeout(() => {
      done = true;
      callback(new errors.ConnectTimeoutError(`no connection through the proxy within ${ms / 1000} s`), null);
    }, ms);
    connect(opts, (error, socket) => {
      clearTimeout(timer);
      if (done) {
        // Too late: the tunnel is not used.
        socket?.destroy();
        return;
      }
      done = true;
      if (error) callback(error, null);
      else callback(null, socket!);
    });
  };
}
