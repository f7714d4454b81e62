/** An app's access token for one store, as the OAuth helpers keep it. */
export interface StoredToken {
  /** The store handle (the first label of its domain). */
  handle: string;
  accessToken: string;
  /** ISO 8601; custom and public app tokens live 10 hours (decisions §5.3). */
  expiresAt: string;
  /** Granted scopes, comma-separated, as the service answered them. */
  scope: string;
}

/**
 * Where tokens live between requests and restarts, one per store handle. `memoryTokenStore` is for
 * one process, `sqliteTokenStore` (`@platform/sdk/sqlite`) for a file, `redisTokenStore`
 * (`@platform/sdk/token-store-redis`) and `pgTokenStore` (`@platform/sdk/token-store-pg`) for many
 * processes sharing tokens; or implement it on your own database.
 */
export interface TokenStore {
  get(handle: string): Promise<StoredToken | undefined>;
  set(token: StoredToken): Promise<void>;
  delete(handle: string): Promise<void>;
  /**
   * Runs `fn` holding a lock on `handle` that every process using this store respects (optional).
   * Refreshes run inside it, so processes sharing the store refresh a token once: the others wait,
   * then find the new token stored and use it (a refresh replaces the token; two at once would
   * leave processes holding tokens that expire 5 minutes later, decisions §5.3).
   */
  withLock?<T>(handle: string, fn: () => Promise<T>): Promise<T>;
}

/** A store that processes share: it locks (refreshes run once across them) and holds a connection to close. */
export type SharedTokenStore = TokenStore & Required<Pick<TokenStore, 'withLock'>> & { close(): Promise<void> };

export function memoryTokenStore(): TokenStore {
  const tokens = new Map<string, StoredToken>();
  return {
    get: async (handle) => {
      const token = tokens.get(handle);
      return token ? { ...token } : undefined;
    },
    set: async (token) => void tokens.set(token.handle, { ...token }),
    delete: async (handle) => void tokens.delete(handle),
  };
}
