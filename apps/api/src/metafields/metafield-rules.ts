import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import {
  expandAppNamespace,
  makeIssue,
  resolveAccess,
  tryCompileValidator,
  validateDefinition,
  ACCESS_ADMIN_VALUES,
  type AccessAdmin,
  type Issue,
  type RuleInput,
  type ValueValidator,
  type AccessAction,
  type AccessDecision,
} from '@platform/domain';
import { reservedNamespaceMessage } from './metafield-definition-view';

/** The columns of a stored definition that values need (the definitions feature owns the table). */
export interface DefinitionRow {
  id: bigint;
  appId: bigint | null;
  namespace: string;
  key: string;
  description: string | null;
  type: string;
  validations: string;
  accessAdmin: string | null;
  rulesRevision: number;
  updatedAt: Date;
}

export type Compiled = { ok: true; validator: ValueValidator } | { ok: false; message: string };

/** How many compiled validators stay in memory at most (least recently used go first). */
export const VALIDATOR_CACHE_MAX_ENTRIES = 1000;
/**
 * The memory compiled validators may hold together, by the domain's estimate of each (its patterns'
 * programs and DFA tables, its schema's compiled code): least recently used go first. Issue 8: 1,000
 * entries of any size let 50 schemas of 1,400 patternProperties hold 1.5 GB. One definition holds
 * at most the domain's DEFINITION_MAX_BYTES (8 MB), so at least eight of the largest fit.
 */
export const VALIDATOR_CACHE_MAX_BYTES = 64 * 1024 * 1024;
/** What a cached refusal (a definition that does not compile) holds, besides its message. */
const REFUSAL_BYTES = 200;

const bytesOf = (compiled: Compiled): number => (compiled.ok ? compiled.validator.bytes : REFUSAL_BYTES + 2 * compiled.message.length);

/**
 * Compiled validators, cached per definition version (id, rulesRevision, updatedAt) so the write
 * path and the re-check never recompile regexes and schemas for every value (decisions §8.9, §8.12).
 * Writes without a definition use the type's basic check alone, cached per type. Bounded by count
 * and by estimated memory, least recently used first (lru-cache: `max` and `maxSize`).
 */
@Injectable()
export class MetafieldValidators {
  private cache = validatorCache(VALIDATOR_CACHE_MAX_BYTES);

  /** The memory bound. Setting it starts an empty cache under the new bound (tests lower it). */
  get maxBytes(): number {
    return this.cache.maxSize;
  }

  set maxBytes(bytes: number) {
    this.cache = validatorCache(bytes);
  }

  /** The estimated memory the cached validators hold (never above the bound once a call returns). */
  get accountedBytes(): number {
    return this.cache.calculatedSize;
  }

  get size(): number {
    return this.cache.size;
  }

  forDefinition(definition: DefinitionRow): Compiled {
    const key = `d:${definition.id}:${definition.rulesRevision}:${definition.updatedAt.getTime()}`;
    return this.cached(key, () => {
      let validations: RuleInput[];
      try {
        validations = JSON.parse(definition.validations) as RuleInput[];
      } catch {
        return { ok: false, message: 'its stored validations are not JSON' };
      }
      return compile(definition.type, validations);
    });
  }

  /** decisions §8.9: without a definition only the basic check runs (the type's format). */
  forType(type: string): Compiled {
    return this.cached(`t:${type}`, () => compile(type, []));
  }

  private cached(key: string, make: () => Compiled): Compiled {
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const made = make();
    // One larger than the whole bound (a smaller bound than a definition may hold) is used, not
    // kept: lru-cache's maxEntrySize is its maxSize.
    this.cache.set(key, made);
    return made;
  }
}

function validatorCache(maxBytes: number): LRUCache<string, Compiled> {
  return new LRUCache<string, Compiled>({
    max: VALIDATOR_CACHE_MAX_ENTRIES,
    maxSize: maxBytes,
    // lru-cache wants a positive integer size.
    sizeCalculation: (compiled) => Math.max(1, Math.ceil(bytesOf(compiled))),
  });
}

function compile(type: string, validations: RuleInput[]): Compiled {
  const result = tryCompileValidator({ type, validations });
  return result.ok ? { ok: true, validator: result.value } : { ok: false, message: result.issues.map((i) => i.message).join('; ') };
}

/**
 * decisions §8.2 and the spec's key rule: a value's namespace and key follow the definition's
 * formats. The domain's definition check is the one place those formats live, so it is asked
 * here with placeholder name and type, and only its namespace and key issues are kept.
 */
export function namespaceAndKeyIssues(namespace: string, key: string): Issue[] {
  const result = validateDefinition({ owner_resource: 'products', namespace, key, name: 'value', type: 'single_line_text_field' });
  return result.ok ? [] : result.issues.filter((i) => i.field === 'namespace' || i.field === 'key');
}

/** `$app:x` as stored for the calling app (decisions §8.2); a stored `app--{id}--x` stays as it is. */
export function storedNamespace(namespace: string, appId: bigint): string {
  return expandAppNamespace(namespace, appId.toString());
}

/** Who the caller is for a value, per the spec's access table: an app (creator or not) or the merchant. */
export type Caller = { kind: 'app'; appId: bigint } | { kind: 'merchant' };

function isAccessAdmin(value: string | null): value is AccessAdmin {
  return value !== null && (ACCESS_ADMIN_VALUES as readonly string[]).includes(value);
}

/**
 * The access decision on an action on the value at `namespace` (decisions §8.7, spec "Access
 * permission values"), made by the domain's resolveAccess. With a definition, its access decides
 * and its creating app is the creator. Without one, a value has no access setting (spec, What the
 * service does 7), except in an app's reserved namespace (`app--{id}--x`): it behaves as an unset
 * access there, MERCHANT_READ_WRITE with that app as the creator. In a reserved namespace only its
 * app writes, whatever the access (decisions §8.2); a write by namespace and key (POST, the bulk
 * set) is first judged by the namespace alone (`use_namespace`).
 */
export function valueAccess(
  caller: Caller,
  namespace: string,
  definition: Pick<DefinitionRow, 'appId' | 'accessAdmin' | 'namespace'> | undefined,
  action: AccessAction,
): AccessDecision {
  // A definition stored without a creating app was made by the merchant (merchant admin).
  const target =
    definition !== undefined
      ? {
          namespace: definition.namespace,
          access: isAccessAdmin(definition.accessAdmin) ? definition.accessAdmin : null,
          creatorAppId: definition.appId?.toString() ?? null,
          merchantMade: definition.appId === null,
        }
      : { namespace, access: null, creatorAppId: null };
  return resolveAccess(target, caller.kind === 'merchant' ? caller : { kind: 'app', appId: caller.appId.toString() }, action);
}

/** The 403 text of a refused write the caller may see: another app's reserved namespace, or a read-only access. */
export function writeDeniedMessage(
  decision: Extract<AccessDecision, { outcome: 'forbidden' }>,
  namespace: string,
  key: string,
  definition: Pick<DefinitionRow, 'accessAdmin'> | undefined,
  caller: Caller['kind'] = 'app',
): string {
  return decision.reason === 'reserved_namespace'
    ? reservedNamespaceMessage(namespace)
    : readOnlyMessage(namespace, key, definition, caller);
}

/** The 403 text when the caller may see a value but its access does not let it change it. */
function readOnlyMessage(
  namespace: string,
  key: string,
  definition: Pick<DefinitionRow, 'accessAdmin'> | undefined,
  caller: Caller['kind'],
): string {
  const access = definition?.accessAdmin ?? 'unset';
  const who = caller === 'merchant' ? 'the merchant admin' : 'this app';
  return `Access denied: metafield ${namespace}.${key} is read-only for ${who} (definition access ${access})`;
}

/** Prefixes issues with where they are in a bulk request: `metafields[3].value: ...` (each keeps its rule). */
export function prefixIssues(issues: readonly Issue[], prefix: string): Issue[] {
  return prefix === '' ? [...issues] : issues.map((i) => makeIssue(`${prefix}${i.field}`, i.message.slice(i.field.length + 2), i.rule));
}
