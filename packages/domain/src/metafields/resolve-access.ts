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
}

const WRITES: ReadonlySet<DefinitionAction> = new Set(['update', 'delete', 'write_values']);

/**
 * The outcome of `action` by `caller` on `target`: the spec's access table for the effective access
 * (decisions §8.7), then decisions §8.2's "only that app may use it": in an app's reserved namespace
 * no other app writes anything (update or delete a definition, write a value), whatever the access
 * says (NONE included); other apps still read per the access. A write refused this way is
 * `forbidden` (403) when the caller may see the target and `not_found` (404) when it may not, as
 * for any other write the access forbids.
 */
export function resolveAccess(target: AccessTarget, caller: AccessCaller, action: DefinitionAction): 'allowed' | 'forbidden' | 'not_found' {
  const admin = effectiveAccess({ access: target.access === null ? null : { admin: target.access }, namespace: target.namespace });
  const owner = appIdOfNamespace(target.namespace);
  const creator = target.creatorAppId ?? owner;
  const actor: DefinitionActor = caller.kind === 'merchant' ? 'merchant' : creator !== null && creator === caller.appId ? 'creator_app' : 'other_app';
  const outcome = accessOutcome(admin, actor, action);
  if (outcome === 'allowed' && caller.kind === 'app' && owner !== null && owner !== caller.appId && WRITES.has(action)) return 'forbidden';
  return outcome;
}
