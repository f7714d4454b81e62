import { appIdOfNamespace, parseNamespace } from './parse-namespace';
import { accessOutcome, type DefinitionAction, type DefinitionActor } from './resolve-permissions';
import type { AccessAdmin, NormalizedDefinition } from './validate-definition';

// decisions §8.2 and §8.7: the behaviour of an unset access, and who may do what with a definition
// and its values.

/** How a definition behaves: an unset access acts as NONE, or MERCHANT_READ_WRITE in an app namespace. */
export function effectiveAccess(definition: Pick<NormalizedDefinition, 'access' | 'namespace'>): AccessAdmin {
  if (definition.access !== null) return definition.access.admin;
  return parseNamespace(definition.namespace).kind === 'app' ? 'MERCHANT_READ_WRITE' : 'NONE';
}

/** Who acts: an app (Admin API) or the merchant admin (operator API). */
export type AccessCaller = { readonly kind: 'app'; readonly appId: string } | { readonly kind: 'merchant' };

/** What is acted on: a definition, or a value under one (or under none: access null, creator null). */
export interface AccessTarget {
  /** Stored spelling (`app--{id}--x` for an app namespace). */
  readonly namespace: string;
  readonly access: AccessAdmin | null;
  /** The app that created the definition; null for a value without a definition (its namespace's app creates). */
  readonly creatorAppId: string | null;
  /**
   * A definition the merchant made in the merchant admin (stored without a creating app): the
   * merchant is its creator and manages it whatever its access, which then speaks of other apps.
   */
  readonly merchantMade?: boolean;
}

/**
 * What is done: an action of the access table on a target the caller found (by id, or a definition
 * by owner_resource + namespace + key), or `use_namespace`: creating a definition, or writing a
 * value by namespace and key, where the namespace alone decides first (nothing there need exist).
 */
export type AccessAction = DefinitionAction | 'use_namespace';

/**
 * Why an action is refused: the access table (`access`), or decisions §8.2's reserved namespace
 * (`reserved_namespace`: another app's `app--{id}--x`, where only that app writes).
 */
export type AccessReason = 'access' | 'reserved_namespace';

export type AccessDecision =
  | { readonly outcome: 'allowed' }
  | { readonly outcome: 'not_found'; readonly reason: 'access' }
  | { readonly outcome: 'forbidden'; readonly reason: AccessReason };

const WRITES: ReadonlySet<AccessAction> = new Set(['update', 'delete', 'write_values', 'use_namespace']);

const ALLOWED: AccessDecision = { outcome: 'allowed' };
const RESERVED: AccessDecision = { outcome: 'forbidden', reason: 'reserved_namespace' };

/**
 * The decision on `action` by `caller` on `target`: the spec's access table for the effective access
 * (decisions §8.7), then decisions §8.2's "only that app may use it": in an app's reserved namespace
 * no other app writes anything (creates or updates or deletes a definition, writes a value),
 * whatever the access says (NONE included); other apps still read per the access.
 *
 * Found targets follow the table first, so a write refused this way is `forbidden` (403) when the
 * caller may see the target and `not_found` (404) when it may not, as for any other write the
 * access forbids. `use_namespace` is decided by the namespace alone (403 whether or not anything
 * exists there, so nothing leaks); the table then still applies to a definition found there.
 */
export function resolveAccess(target: AccessTarget, caller: AccessCaller, action: AccessAction): AccessDecision {
  const owner = appIdOfNamespace(target.namespace);
  const reserved = caller.kind === 'app' && owner !== null && owner !== caller.appId && WRITES.has(action);
  if (action === 'use_namespace') return reserved ? RESERVED : ALLOWED;
  const admin = effectiveAccess({ access: target.access === null ? null : { admin: target.access }, namespace: target.namespace });
  const creator = target.creatorAppId ?? owner;
  const actor: DefinitionActor =
    caller.kind === 'merchant'
      ? target.merchantMade === true
        ? 'creator_app'
        : 'merchant'
      : creator !== null && creator === caller.appId
        ? 'creator_app'
        : 'other_app';
  const outcome = accessOutcome(admin, actor, action);
  if (outcome === 'not_found') return { outcome, reason: 'access' };
  // Where both forbid (PUBLIC_READ in another app's namespace), the namespace is the reason given:
  // no access would let the caller write there.
  if (reserved) return RESERVED;
  return outcome === 'forbidden' ? { outcome, reason: 'access' } : ALLOWED;
}
