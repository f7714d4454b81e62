import type { AccessAdmin } from './validate-definition';

// The spec's "Access permission values" table: who may do what with a definition and its values,
// given its effective access.admin (see effectiveAccess for an unset access, decisions §8.7).

/** The app that created the definition, the merchant admin (operator API), or any other app. */
export type DefinitionActor = 'creator_app' | 'merchant' | 'other_app';
export type DefinitionAction = 'view' | 'update' | 'delete' | 'read_values' | 'write_values';

type Grants = Readonly<Record<DefinitionAction, boolean>>;

const ALL: Grants = { view: true, update: true, delete: true, read_values: true, write_values: true };
const NOTHING: Grants = { view: false, update: false, delete: false, read_values: false, write_values: false };
// "Views the definition only; cannot delete it": it sees the definition and its values, changes neither.
const VIEW_ONLY: Grants = { view: true, update: false, delete: false, read_values: true, write_values: false };
// "Read only".
const READ_ONLY: Grants = VIEW_ONLY;

const TABLE: Readonly<Record<AccessAdmin, Readonly<Record<DefinitionActor, Grants>>>> = {
  MERCHANT_READ_WRITE: { creator_app: ALL, merchant: ALL, other_app: NOTHING },
  MERCHANT_READ: { creator_app: ALL, merchant: VIEW_ONLY, other_app: NOTHING },
  PUBLIC_READ: { creator_app: ALL, merchant: VIEW_ONLY, other_app: READ_ONLY },
  // The creator manages it through the REST interface; the merchant admin cannot even see it.
  PRIVATE: { creator_app: ALL, merchant: NOTHING, other_app: NOTHING },
  // No restriction (decisions §8.7): "Read and write" for other apps.
  NONE: { creator_app: ALL, merchant: ALL, other_app: ALL },
};

export function isAllowed(admin: AccessAdmin, actor: DefinitionActor, action: DefinitionAction): boolean {
  return TABLE[admin][actor][action];
}

/**
 * decisions §8.7 and §4: a definition the actor may not even view is `not_found` (its existence does
 * not leak, 404); one it may view but not act on this way is `forbidden` (403).
 */
export function accessOutcome(admin: AccessAdmin, actor: DefinitionActor, action: DefinitionAction): 'allowed' | 'forbidden' | 'not_found' {
  if (!isAllowed(admin, actor, 'view')) return 'not_found';
  return isAllowed(admin, actor, action) ? 'allowed' : 'forbidden';
}
