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
    /** The version that serves this Admin API request (decisions §2.5). */
    apiVersion?: string;
    auth?: AuthContext;
  }
}
