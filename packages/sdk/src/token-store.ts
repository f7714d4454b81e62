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
 * Where tokens live between requests and restarts, one per store handle. Implement it on your own
 * database; `memoryTokenStore` is for one process, `sqliteTokenStore` (`@platform/sdk/sqlite`) for a file.
 */
export interface TokenStore {
  get(handle: string): Promise<StoredToken | undefined>;
  set(token: StoredToken): Promise<void>;
  delete(handle: string): Promise<void>;
}

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
