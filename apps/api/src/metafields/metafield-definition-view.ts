import { MAX_ID } from '../http/ids';
import type { MetafieldDefinition } from '@platform/contract';
import type { MetafieldDefinition as DefinitionRow } from '@platform/db';
import {
  DomainError,
  effectiveAccess,
  formatInZone,
  resolveAccess,
  type AccessAdmin,
  type AccessCaller,
  type DefinitionAction,
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

export function rulesOf(row: Pick<DefinitionRow, 'validations'>): NormalizedRule[] {
  return JSON.parse(row.validations) as NormalizedRule[];
}

/**
 * The stored definition as the domain's rule engine takes it. The stored namespace `app--{id}--x`
 * is read by the rules exactly as `$app:x` (decisions §8.2), so it is passed as stored.
 */
export function normalizedOf(row: DefinitionRow): NormalizedDefinition {
  return {
    owner_resource: row.ownerResource as OwnerResource,
    namespace: row.namespace,
    key: row.key,
    name: row.name,
    // null: never given; "": cleared by an update (spec update rule 3).
    description: row.description,
    type: row.type as MetafieldType,
    validations: rulesOf(row),
    access: row.accessAdmin === null ? null : { admin: row.accessAdmin as AccessAdmin },
  };
}

/** decisions §8.7: an unset access behaves as NONE, or MERCHANT_READ_WRITE in an app namespace. */
export function accessOf(row: DefinitionRow): AccessAdmin {
  return effectiveAccess(normalizedOf(row));
}

function accessCallerOf(caller: Caller): AccessCaller {
  return caller.kind === 'merchant' ? caller : { kind: 'app', appId: caller.appId.toString() };
}

function decisionOn(row: DefinitionRow, caller: Caller, action: DefinitionAction) {
  // A definition stored without a creating app is the merchant's own (made in the merchant admin).
  const target = {
    namespace: row.namespace,
    access: row.accessAdmin as AccessAdmin | null,
    creatorAppId: row.appId?.toString() ?? null,
    merchantMade: row.appId === null,
  };
  return resolveAccess(target, accessCallerOf(caller), action);
}

/**
 * The 403 text of a write in another app's reserved namespace (decisions §8.2), for definitions and
 * values alike: the domain's resolveAccess decides, with the reason `reserved_namespace`.
 */
export function reservedNamespaceMessage(namespace: string): string {
  return `namespace: ${namespace} is reserved to another app; only that app may create, change or delete definitions and values there`;
}

/**
 * The spec's access table and decisions §8.2 through the domain's resolveAccess: 404 when the caller
 * may not see the definition, 403 when it may see it but not act (a read-only access, or another
 * app's reserved namespace, where only that app writes).
 */
export function assertAllowed(row: DefinitionRow, caller: Caller, action: DefinitionAction): void {
  const decision = decisionOn(row, caller, action);
  if (decision.outcome === 'not_found') throw new DomainError('NOT_FOUND', 'Not Found');
  const refusal = refusalOf(row, caller, action);
  if (refusal !== undefined) throw new DomainError('ACCESS_DENIED', refusal);
}

/**
 * Why `caller` may see the definition but not do `action` (the 403 text of the API, and the reason
 * the merchant admin shows beside a read-only definition); undefined when it may.
 */
export function refusalOf(row: DefinitionRow, caller: Caller, action: DefinitionAction): string | undefined {
  const decision = decisionOn(row, caller, action);
  if (decision.outcome !== 'forbidden') return undefined;
  if (decision.reason === 'reserved_namespace') return reservedNamespaceMessage(row.namespace);
  const admin = row.accessAdmin ?? `unset, behaving as ${accessOf(row)}`;
  return `This definition's access (admin: ${admin}) does not let you ${action} it`;
}

export function isVisible(row: DefinitionRow, caller: Caller): boolean {
  return decisionOn(row, caller, 'view').outcome === 'allowed';
}

/**
 * decisions §8.2: a namespace `app--{id}--x` belongs to app `id` alone: another app creating there
 * is refused by the name alone (403), before the body's rules, whether or not anything exists there.
 */
export function assertNamespaceUsable(namespace: unknown, appId: bigint): void {
  if (typeof namespace !== 'string') return;
  const decision = resolveAccess(
    { namespace, access: null, creatorAppId: null },
    { kind: 'app', appId: appId.toString() },
    'use_namespace',
  );
  if (decision.outcome !== 'allowed') throw new DomainError('ACCESS_DENIED', reservedNamespaceMessage(namespace));
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
