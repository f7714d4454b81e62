// Pure: runs wherever fetch does. Signing rules are the domain's (decisions §5.2), the ones the server checks.
import { oauthContract } from '@platform/contract';
import { signTokenRequest, verifyQuerySign } from '@platform/domain/signing';
import { systemClock, type Clock } from './clock';
import { createClient, type ClientOptions, type PlatformClient } from './client';
import { apiErrorFromResponse, hostAndPort, PlatformError, PlatformNetworkError } from './errors';
import type { StoredToken, TokenStore } from './token-store';
import { memoryTokenStore } from './token-store';
import { userAgent } from './user-agent';

export type OAuthFailure = 'ACCESS_DENIED' | 'BAD_SIGN' | 'STALE_TIMESTAMP' | 'MISSING_PARAMETER' | 'WRONG_APP' | 'BAD_ANSWER' | 'NO_TOKEN';

export class OAuthError extends PlatformError {
  readonly reason: OAuthFailure;
  constructor(reason: OAuthFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

export interface OAuthOptions {
  appKey: string;
  appSecret: string;
  /** Where each store's API is: `https://{handle}.{baseDomain}` (e.g. `myplatform.com`)... */
  baseDomain?: string;
  /** ...or one address for every store (the token or code identifies it), e.g. `http://127.0.0.1:3000`.
   *  Refresh and cancel name their store by the Host (decisions §5.2), so they need one of the other two. */
  baseUrl?: string;
  /** ...or each store's origin from its handle, e.g. `(h) => \`http://${h}.localhost:3000\`` in development. */
  storeOrigin?: (handle: string) => string;
  /** Default: in memory (one process). */
  store?: TokenStore;
  fetch?: typeof fetch;
  clock?: Clock;
  /** Refresh a token this long before it expires (default 5 minutes). */
  refreshMarginMs?: number;
  /** A callback whose `timestamp` is further than this from now is refused (default 10 minutes, as codes live). */
  callbackMaxAgeMs?: number;
}

export interface AuthorizeUrlInput {
  handle: string;
  scopes: readonly string[] | string;
  redirectUri: string;
  /** Echoed to your redirect URI; put a per-session random value here and check it on the callback (CSRF). */
  customField?: string;
}

export interface VerifiedCallback {
  code: string;
  handle: string;
  timestamp: string;
  customField: string | undefined;
}

type TokenAnswer = { code?: unknown; message?: unknown; data?: { accessToken?: unknown; expireTime?: unknown; scope?: unknown } };

// The token routes as the contract declares them (decisions §5.2).
const TOKEN_PATHS = {
  create: oauthContract.createOAuthToken.path,
  refresh: oauthContract.refreshOAuthToken.path,
  cancel: oauthContract.cancelOAuthToken.path,
} as const;

function tokenPath(kind: keyof typeof TOKEN_PATHS): string {
  return TOKEN_PATHS[kind];
}

function params(query: URLSearchParams | string | Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  if (typeof query === 'string' || query instanceof URLSearchParams) {
    const search = typeof query === 'string' ? new URLSearchParams(query.startsWith('?') ? query.slice(1) : query) : query;
    return Object.fromEntries(search.entries());
  }
  return Object.fromEntries(Object.entries(query).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
}

/**
 * OAuth for custom and public apps (decisions §5.2-§5.3): the consent URL, the callback check, the
 * code exchange, refresh (single-flight per store: concurrent callers share one refresh, and processes
 * sharing a store that locks share it too) and cancel,
 * with tokens kept in a `TokenStore`; `client(handle)` gives an API client that always holds a fresh token.
 */
export function createOAuth(options: OAuthOptions) {
  if (!options.appKey || !options.appSecret) throw new TypeError('createOAuth: appKey and appSecret are required');
  const places = [options.baseDomain, options.baseUrl, options.storeOrigin].filter((place) => place !== undefined).length;
  if (places !== 1) throw new TypeError('createOAuth: give exactly one of baseDomain, baseUrl or storeOrigin');
  const store = options.store ?? memoryTokenStore();
  const clock = options.clock ?? systemClock;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const margin = options.refreshMarginMs ?? 5 * 60_000;
  const maxAge = options.callbackMaxAgeMs ?? 10 * 60_000;
  const refreshing = new Map<string, Promise<StoredToken>>();

  const storeUrl = (handle: string) => {
    if (!/^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])$/.test(handle))
      throw new TypeError(`not a store handle: ${JSON.stringify(handle)} (decisions §1.5)`);
    if (options.storeOrigin) return options.storeOrigin(handle).replace(/\/+$/, '');
    return options.baseUrl !== undefined ? options.baseUrl.replace(/\/+$/, '') : `https://${handle}.${options.baseDomain}`;
  };

  /**
   * One refresh per store at a time: in this process (concurrent callers share the promise) and,
   * when the store has a lock, across every process sharing it. `stale` is the token the caller
   * found too old: when the store holds another one by the time the lock is held, another process
   * has refreshed it, and that token is the answer.
   */
  function refreshFrom(handle: string, stale: string | undefined): Promise<StoredToken> {
    let pending = refreshing.get(handle);
    if (!pending) {
      const run = async () => {
        const current = await store.get(handle);
        if (!current) throw new OAuthError('NO_TOKEN', `No token stored for ${handle}: install the app first`);
        if (stale !== undefined && current.accessToken !== stale) return current;
        return (await tokenCall('refresh', handle, undefined, current.accessToken))!;
      };
      pending = (store.withLock ? store.withLock(handle, run) : run()).finally(() => refreshing.delete(handle));
      refreshing.set(handle, pending);
    }
    return pending;
  }

  async function tokenCall(
    kind: keyof typeof TOKEN_PATHS,
    handle: string,
    body: unknown,
    bearer?: string,
  ): Promise<StoredToken | undefined> {
    const rawBody = body === undefined ? '' : JSON.stringify(body);
    const timestamp = String(clock.now());
    const headers: Record<string, string> = {
      appkey: options.appKey,
      timestamp,
      sign: signTokenRequest({ secret: options.appSecret, rawBody, timestamp }),
      accept: 'application/json',
      'user-agent': userAgent(),
    };
    if (rawBody) headers['content-type'] = 'application/json; charset=utf-8';
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    const url = `${storeUrl(handle)}${tokenPath(kind)}`;
    const identity = { method: 'POST', path: new URL(url).pathname, host: hostAndPort(url) };
    let response: Response;
    try {
      response = await fetchImpl(url, { method: 'POST', headers, ...(rawBody ? { body: rawBody } : {}) });
    } catch (error) {
      throw new PlatformNetworkError(identity, error);
    }
    if (!response.ok) throw await apiErrorFromResponse(response, identity, clock.now());
    if (kind === 'cancel') return undefined;
    const answer = (await response.json().catch(() => ({}))) as TokenAnswer;
    const data = answer.data;
    if (answer.code !== 200 || typeof data?.accessToken !== 'string' || typeof data.expireTime !== 'string') {
      throw new OAuthError('BAD_ANSWER', `${identity.path}: unexpected answer ${JSON.stringify(answer).slice(0, 200)}`);
    }
    const token: StoredToken = {
      handle,
      accessToken: data.accessToken,
      expiresAt: data.expireTime,
      scope: typeof data.scope === 'string' ? data.scope : '',
    };
    await store.set(token);
    return token;
  }

  const oauth = {
    store,

    /** The consent page's URL on the store's host (decisions §5.2). */
    authorizeUrl(input: AuthorizeUrlInput): string {
      const search = new URLSearchParams({
        appKey: options.appKey,
        responseType: 'code',
        scope: typeof input.scopes === 'string' ? input.scopes : input.scopes.join(','),
        redirectUri: input.redirectUri,
      });
      if (input.customField !== undefined) search.set('customField', input.customField);
      return `${storeUrl(input.handle)}/admin/oauth/authorize?${search.toString()}`;
    },

    /**
     * Checks the redirect's `sign` (constant time) and `timestamp`, and that it is for this app.
     * Give the query as received (a URL's search, URLSearchParams or a framework's parsed query).
     */
    verifyCallback(
      query: URLSearchParams | string | Record<string, string | string[] | undefined>,
      expectedCustomField?: string,
    ): VerifiedCallback {
      const p = params(query);
      if (p.error) throw new OAuthError('ACCESS_DENIED', `The merchant declined (${p.error})`);
      for (const name of ['code', 'handle', 'timestamp', 'sign', 'appkey'] as const) {
        if (!p[name]) throw new OAuthError('MISSING_PARAMETER', `The callback has no ${name}`);
      }
      if (!verifyQuerySign(p, options.appSecret)) throw new OAuthError('BAD_SIGN', 'The callback sign does not match its parameters');
      if (p.appkey !== options.appKey) throw new OAuthError('WRONG_APP', 'The callback is for another app');
      const at = Number(p.timestamp);
      if (!Number.isFinite(at) || Math.abs(clock.now() - at) > maxAge)
        throw new OAuthError('STALE_TIMESTAMP', 'The callback timestamp is too old (or in the future)');
      if (expectedCustomField !== undefined && p.customField !== expectedCustomField) {
        throw new OAuthError('BAD_SIGN', 'customField is not the value this session sent (CSRF check)');
      }
      return { code: p.code!, handle: p.handle!, timestamp: p.timestamp!, customField: p.customField };
    },

    /** Exchanges a callback's code for a token (single use, 10 minutes) and stores it. */
    async exchangeCode(handle: string, code: string): Promise<StoredToken> {
      return (await tokenCall('create', handle, { code }))!;
    },

    /**
     * A new token for `handle`; concurrent calls share one refresh (across processes too, with a
     * store that locks). The old token stays valid 5 more minutes (decisions §5.3).
     */
    refresh(handle: string): Promise<StoredToken> {
      return refreshFrom(handle, undefined);
    },

    /** The stored token, refreshed first when it expires within `refreshMarginMs`. */
    async accessToken(handle: string): Promise<string> {
      // A refresh under way gives the newest token there is: wait for it rather than judge the old one.
      const inFlight = refreshing.get(handle);
      if (inFlight) return (await inFlight).accessToken;
      const current = await store.get(handle);
      if (!current) throw new OAuthError('NO_TOKEN', `No token stored for ${handle}: install the app first`);
      if (Date.parse(current.expiresAt) - clock.now() > margin) return current.accessToken;
      return (await refreshFrom(handle, current.accessToken)).accessToken;
    },

    /** Revokes the app on `handle` (every token invalid at once, decisions §5.3) and forgets the token. */
    async cancel(handle: string): Promise<void> {
      const current = await store.get(handle);
      await tokenCall('cancel', handle, undefined, current?.accessToken);
      await store.delete(handle);
    },

    /** An API client for `handle` whose token is read (and refreshed) from the store before each request. */
    client(handle: string, clientOptions: Omit<ClientOptions, 'accessToken' | 'storeDomain' | 'baseUrl'>): PlatformClient {
      return createClient({
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
        ...clientOptions,
        ...(options.baseDomain !== undefined ? { storeDomain: `${handle}.${options.baseDomain}` } : { baseUrl: storeUrl(handle) }),
        accessToken: () => oauth.accessToken(handle),
        rateLimitKey: `${options.appKey}:${handle}`,
      });
    },
  };
  return oauth;
}

export type PlatformOAuth = ReturnType<typeof createOAuth>;
