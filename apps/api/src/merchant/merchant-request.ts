import type { FastifyRequest } from 'fastify';
import type { StoreRecord } from '../stores/stores.service';
import type { SessionRow } from './merchant-sessions.repository';

/** A signed-in merchant's session (MerchantSessionsService). */
export interface MerchantSession extends SessionRow {
  /** The token of the session's forms that need no one-time token (sign-out). */
  formToken: string;
}

/** The signed-in merchant of the host's store: what every merchant page and form is for. */
export interface MerchantContext {
  store: StoreRecord;
  session: MerchantSession;
}

// What a request has been found to be, kept on it so an error page shows the same store and, when
// signed in, the navigation (merchant-errors.filter.ts), whichever step failed.
const CONTEXT = Symbol('merchant');
const HOST_STORE = Symbol('merchant-host-store');
type Marked = FastifyRequest & { [CONTEXT]?: MerchantContext; [HOST_STORE]?: StoreRecord };

export function rememberContext(request: FastifyRequest, context: MerchantContext): void {
  (request as Marked)[CONTEXT] = context;
}

/** The signed-in merchant, once MerchantSessionGuard (or the not-found pages) found one. */
export function merchantContextOf(request: FastifyRequest): MerchantContext | undefined {
  return (request as Marked)[CONTEXT];
}

export function rememberHostStore(request: FastifyRequest, store: StoreRecord): void {
  (request as Marked)[HOST_STORE] = store;
}

/** The store the request's host names, once found (signed in or not). */
export function hostStoreOf(request: FastifyRequest): StoreRecord | undefined {
  return (request as Marked)[HOST_STORE];
}
