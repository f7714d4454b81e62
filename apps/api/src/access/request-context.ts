import type { Scope } from '@platform/domain';

/** What authentication established about the caller of an Admin API request. */
export interface AuthContext {
  tokenId: bigint;
  appId: bigint;
  appKind: 'private' | 'custom' | 'public';
  installationId: bigint;
  scopes: readonly Scope[];
  store: StoreContext;
}

export interface StoreContext {
  id: bigint;
  handle: string;
  name: string;
  ianaTimezone: string;
  status: string;
  planExpiresAt: Date | null;
  /** Read with the token: moves with every write the product listing shows (ListingCache). */
  catalogRevision?: bigint;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the access check (AccessService) of an Admin API request. */
    auth?: AuthContext;
  }
}
