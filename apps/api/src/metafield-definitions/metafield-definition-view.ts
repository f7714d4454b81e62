import { MAX_ID } from '../http/ids';
import type { MetafieldDefinition } from '@platform/contract';
import type { MetafieldDefinition as DefinitionRow } from '@platform/db';
import {
  accessOutcome,
  appIdOfNamespace,
  DomainError,
  effectiveAccess,
  formatInZone,
  isAllowed,
  type AccessAdmin,
  type DefinitionAction,
  type DefinitionActor,
  type MetafieldType,
  type NormalizedDefinition,
  type NormalizedRule,
  type OwnerResource,
} from '@platform/domain';

export type { DefinitionRow };

/** The caller of a definition operation: an app (Admin API) or the merchant admin (operator API). */
export type Caller = { kind: 'app'; appId: bigint } | { kind: 'merchant' };

/**
 * The `id` query parameter of get and delete. Missing, empty or not decimal digits: a bad query
 * parameter, 400 (decisions §4). Well-formed but beyond any id: names nothing, 404.
 */
export function parseIdParam(raw: string | undefined): bigint {
  if (raw === undefined || raw === '') throw new DomainError('INVALID_PARAMETER', 'id: is required');
  if (!/^[0-9]+$/.test(raw)) throw new DomainError('INVALID_PARAMETER', 'id: must be a decimal id');
  const id = BigInt(raw);
  if (id > MAX_ID) throw new DomainError('NOT_FOUND', 'Not Found');
  return id;
}

/** `delete_all_associated_metafields`: `true` or `false` (default false); anything else is a 400. */
export function parseFlag(name: string, raw: string | undefined): boolean {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new DomainError('INVALID_PARAMETER', `${name}: must be true or false`);
}

/**
 * A stored app namespace `app--{id}--x` in the `$app:x` spelling the domain's rules take: so that
 * re-validating the stored definition on update counts the length of `x`, not of the stored form,
 * and `effectiveAccess` sees an app namespace (decisions §8.2, §8.7).
 */
function ruleNamespace(namespace: string): string {
  const appId = appIdOfNamespace(namespace);
  return appId === null ? namespace : `$app:${namespace.slice(`app--${appId}--`.length)}`;
}

export function rulesOf(row: Pick<DefinitionRow, 'validations'>): NormalizedRule[] {
  return JSON.parse(row.validations) as NormalizedRule[];
}

/** The stored definition as the domain's rule engine takes it. */
export function normalizedOf(row: DefinitionRow): NormalizedDefinition {
  return {
    owner_resource: row.ownerResource as OwnerResource,
    namespace: ruleNamespace(row.namespace),
    key: row.key,
    name: row.name,
    // The column is not nullable: "" is "not set" (the domain's null).
    description: row.description === '' ? null : row.description,
    type: row.type as MetafieldType,
    validations: rulesOf(row),
    access: row.accessAdmin === null ? null : { admin: row.accessAdmin as AccessAdmin },
  };
}

/** decisions §8.7: an unset access behaves as NONE, or MERCHANT_READ_WRITE in an app namespace. */
export function accessOf(row: DefinitionRow): AccessAdmin {
  return effectiveAccess(normalizedOf(row));
}

export function actorOf(row: DefinitionRow, caller: Caller): DefinitionActor {
  if (caller.kind === 'merchant') return 'merchant';
  return row.appId !== null && row.appId === caller.appId ? 'creator_app' : 'other_app';
}

/** The spec's access table through the domain: 404 when the caller may not see it, 403 when it may not act. */
export function assertAllowed(row: DefinitionRow, caller: Caller, action: DefinitionAction): void {
  const outcome = accessOutcome(accessOf(row), actorOf(row, caller), action);
  if (outcome === 'not_found') throw new DomainError('NOT_FOUND', 'Not Found');
  if (outcome === 'forbidden') {
    const admin = row.accessAdmin ?? `unset, behaving as ${accessOf(row)}`;
    throw new DomainError('ACCESS_DENIED', `This definition's access (admin: ${admin}) does not let you ${action} it`);
  }
}

export function isVisible(row: DefinitionRow, caller: Caller): boolean {
  return isAllowed(accessOf(row), actorOf(row, caller), 'view');
}

/** decisions §8.2: a namespace `app--{id}--x` belongs to app `id` alone. */
export function assertNamespaceUsable(namespace: unknown, appId: bigint): void {
  if (typeof namespace !== 'string') return;
  const owner = appIdOfNamespace(namespace);
  if (owner !== null && owner !== appId.toString()) {
    throw new DomainError('ACCESS_DENIED', `namespace: ${namespace} is reserved to another app (decisions §8.2)`);
  }
}

/** The spec's "Metafield definition" object, as the contract declares it. */
export type DefinitionJson = MetafieldDefinition;

/** The spec's "Metafield definition" object; times in the store's zone (decisions §3.3). */
export function definitionJson(row: DefinitionRow, timeZone: string): DefinitionJson {
  const normalized = normalizedOf(row);
  return {
    id: row.id.toString(),
    owner_resource: normalized.owner_resource,
    namespace: row.namespace,
    key: row.key,
    name: row.name,
    description: normalized.description,
    type: row.type,
    validations: [...normalized.validations],
    access: normalized.access,
    created_at: formatInZone(row.createdAt, timeZone),
    updated_at: formatInZone(row.updatedAt, timeZone),
  };
}

/** decisions §6.4: the named top-level fields, `id` always. */
export function pickFields(json: DefinitionJson, fields: ReadonlySet<string> | undefined): Partial<DefinitionJson> {
  if (!fields) return json;
  const picked: Record<string, unknown> = {};
  for (const field of fields) if (Object.prototype.hasOwnProperty.call(json, field)) picked[field] = json[field as keyof DefinitionJson];
  return picked as Partial<DefinitionJson>;
}
