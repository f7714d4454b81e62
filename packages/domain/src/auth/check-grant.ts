import type { AppKind } from './compute-token-expiry';
import { expandScopes, parseScopeList, type Scope } from './define-scopes';

/** decisions §5.2: an OAuth code and a consent form live 10 minutes. */
export const OAUTH_CODE_MINUTES = 10;

/** The parts of an app that decide what it may be granted. */
export interface GrantableApp {
  kind: AppKind;
  /** The scopes the app registered (requested) when it was created. */
  scopes: readonly string[];
  /** The store a custom app belongs to; null until its first approval (docs/decisions.md). */
  storeId: bigint | null;
}

export type GrantCheck =
  | { ok: true; scopes: Scope[] }
  | { ok: false; reason: 'PRIVATE_APP' | 'NO_SCOPE' | 'UNKNOWN_SCOPE' | 'UNREGISTERED_SCOPE' | 'OTHER_STORE'; message: string };

/**
 * What a merchant may grant an app on a store (decisions §5.2, §5.5): at least one scope, every one
 * a scope and registered by the app (or the read scope of a registered write scope), so a token never carries more than the app asked for; a
 * private app is never installed through OAuth; a custom app installs on one store only.
 * `field` names the request's field in messages (`scope` of the consent page, `scopes` of the operator).
 */
export function checkGrant(app: GrantableApp, storeId: bigint, requested: unknown, field = 'scope'): GrantCheck {
  if (app.kind === 'private') {
    return { ok: false, reason: 'PRIVATE_APP', message: 'app: is a private app; its token comes from the merchant admin, not OAuth' };
  }
  const parsed = parseScopeList(requested);
  if (!parsed.ok) return { ok: false, reason: 'UNKNOWN_SCOPE', message: `${field}: ${parsed.message}` };
  if (parsed.value.length === 0) return { ok: false, reason: 'NO_SCOPE', message: `${field}: must name at least one scope` };
  // A registered write scope covers its read scope: asking for less than registered is fine.
  const registered = expandScopes(app.scopes);
  const extra = parsed.value.filter((s) => !registered.has(s));
  if (extra.length > 0) {
    return {
      ok: false,
      reason: 'UNREGISTERED_SCOPE',
      message: `${field}: ${extra.join(', ')} ${extra.length === 1 ? 'is' : 'are'} not among the scopes the app registered (${app.scopes.join(', ')})`,
    };
  }
  if (app.kind === 'custom' && app.storeId !== null && app.storeId !== storeId) {
    return { ok: false, reason: 'OTHER_STORE', message: 'app: is a custom app of another store; a custom app installs on one store only' };
  }
  return { ok: true, scopes: parsed.value };
}

/** decisions §5.2: `redirectUri` must equal one of the app's registered `redirect_urls`, exactly. */
export function isRegisteredRedirect(redirectUri: unknown, registered: readonly string[]): redirectUri is string {
  return typeof redirectUri === 'string' && redirectUri.length > 0 && registered.includes(redirectUri);
}

/** What each scope lets an app do, in the merchant's words (the consent page). */
export const SCOPE_WORDS: Readonly<Record<Scope, string>> = {
  read_products: 'See your products',
  write_products: 'See and change your products',
  read_inventory: 'See your inventory',
  write_inventory: 'See and change your inventory',
  read_fulfillments: 'See your fulfillment orders',
  write_fulfillments: 'See and change your fulfillment orders',
  read_metafields: 'See the extra fields (metafields) of your store',
  write_metafields: 'See and change the extra fields (metafields) of your store',
  read_store_information: 'See your store information (name, e-mail, currency, time zone)',
};
