import { Injectable } from '@nestjs/common';
import {
  checkDefinitionReferences,
  DomainError,
  expandAppNamespace,
  IssuesError,
  makeIssue,
  merchantDefinitionIssues,
  OWNER_RESOURCES,
  referencedIds,
  validateDefinition,
  validateDefinitionUpdate,
  type DefinitionInput,
  type DefinitionReference,
  type Issue,
} from '@platform/domain';
import { ClockService } from '../core/clock.service';
import type { Config } from '../config';
import { InjectConfig } from '../core/injection';
import { isConflict } from '../core/prisma-errors';
import { readPageRequest, renderKeysetPage, type PageQuery, type RenderedPage } from '../http/keyset-pagination';
import type { AuthContext, StoreContext } from '../access/request-context';
import {
  accessOf,
  assertAllowed,
  assertNamespaceUsable,
  definitionJson,
  isVisible,
  normalizedOf,
  parseFlag,
  parseIdParam,
  pickFields,
  refusalOf,
  type Caller,
  type DefinitionJson,
  type DefinitionRow,
} from './metafield-definition-view';
import { MetafieldDefinitionsRepository, type DefinitionChanges, type DefinitionPageQuery } from './metafield-definitions.repository';

export interface DefinitionListQuery extends PageQuery {
  owner_resource?: string;
  namespace?: string;
}

function failed(issues: readonly Issue[]): DomainError {
  return new IssuesError(issues);
}

/** The store a definition operation acts in, and who acts: an app (Admin API) or the merchant (merchant admin). */
interface Acting {
  store: StoreContext;
  caller: Caller;
}

/** The definitions of one owner resource the merchant may see, a page by id (merchant admin). */
export interface MerchantDefinitionPage {
  rows: DefinitionRow[];
  /** There are more after the last row. */
  more: boolean;
}

/** The `definition` object of a create or update body; the rest of the shape is the domain's to judge. */
function definitionOf(body: unknown): DefinitionInput {
  const definition = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['definition'] : undefined;
  if (definition === undefined || definition === null) throw failed([makeIssue('definition', "can't be blank")]);
  if (typeof definition !== 'object' || Array.isArray(definition)) throw failed([makeIssue('definition', 'must be an object')]);
  return definition as DefinitionInput;
}

/** The three fields that name an update's target (decisions §8.5). */
function targetOf(patch: DefinitionInput): { ownerResource: string; namespace: string; key: string } {
  const issues: Issue[] = [];
  const text = (field: string, value: unknown): string => {
    if (value === undefined || value === null || value === '') issues.push(makeIssue(field, "can't be blank"));
    else if (typeof value !== 'string') issues.push(makeIssue(field, 'must be a string'));
    else return value;
    return '';
  };
  const target = {
    ownerResource: text('owner_resource', patch.owner_resource),
    namespace: text('namespace', patch.namespace),
    key: text('key', patch.key),
  };
  if (issues.length > 0) throw failed(issues);
  return target;
}

/** A non-empty filter value, or undefined when the parameter is absent; present but empty is a 400 (decisions §6.1). */
function filterOf(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (raw === '') throw new DomainError('INVALID_PARAMETER', `${name}: can't be blank`);
  return raw;
}

/** Rows a caller may see, scanning past the others, so the page is the caller's own listing (decisions §8.7). */
const SCAN_BATCH = 200;

@Injectable()
export class MetafieldDefinitionsService {
  constructor(
    private readonly repository: MetafieldDefinitionsRepository,
    private readonly clock: ClockService,
    @InjectConfig() private readonly config: Config,
  ) {}

  async create(auth: AuthContext, body: unknown): Promise<DefinitionJson> {
    const row = await this.createAs({ store: auth.store, caller: callerOf(auth) }, definitionOf(body));
    return definitionJson(row, auth.store.ianaTimezone);
  }

  /**
   * The merchant's own definition (merchant admin): stored without a creating app, so the merchant
   * manages it; never in an app's namespace, never PRIVATE or MERCHANT_READ (merchantDefinitionIssues).
   */
  createForMerchant(store: StoreContext, input: DefinitionInput): Promise<DefinitionRow> {
    return this.createAs({ store, caller: { kind: 'merchant' } }, input);
  }

  private async createAs({ store, caller }: Acting, input: DefinitionInput): Promise<DefinitionRow> {
    // Whose the namespace is comes first: the same body may be fine for its owner (decisions §8.2).
    if (caller.kind === 'app') assertNamespaceUsable(input.namespace, caller.appId);
    const own = caller.kind === 'merchant' ? merchantDefinitionIssues(input) : [];
    const result = validateDefinition(input);
    if (!result.ok || own.length > 0) throw failed([...own, ...(result.ok ? [] : result.issues)]);
    await this.checkReferences(store.id, result.references);
    const value = result.value;
    const namespace = caller.kind === 'app' ? expandAppNamespace(value.namespace, caller.appId.toString()) : value.namespace;
    try {
      return await this.repository.create(
        {
          storeId: store.id,
          appId: caller.kind === 'app' ? caller.appId : null,
          ownerResource: value.owner_resource,
          namespace,
          key: value.key,
          name: value.name,
          description: value.description,
          type: value.type,
          validations: value.validations,
          accessAdmin: value.access?.admin ?? null,
        },
        this.clock.now(),
      );
    } catch (error) {
      // decisions §8.3: the unique index decides, so concurrent creates yield one definition.
      if (isConflict(error, 'unique')) {
        throw failed([
          makeIssue(
            'key',
            `has already been taken (a definition of ${value.owner_resource} with namespace ${namespace} and key ${value.key} exists)`,
          ),
        ]);
      }
      throw error;
    }
  }

  async get(auth: AuthContext, rawId: string | undefined): Promise<DefinitionJson> {
    const row = await this.repository.findById(auth.store.id, parseIdParam(rawId));
    if (!row) throw new DomainError('NOT_FOUND', 'Not Found');
    assertAllowed(row, callerOf(auth), 'view');
    return definitionJson(row, auth.store.ianaTimezone);
  }

  async update(auth: AuthContext, body: unknown): Promise<DefinitionJson> {
    const patch = definitionOf(body);
    const target = targetOf(patch);
    // Either spelling of the caller's own app namespace names the same definition (decisions §8.2).
    const namespace = expandAppNamespace(target.namespace, auth.appId.toString());
    const row = await this.repository.findByKey(auth.store.id, target.ownerResource, namespace, target.key);
    if (!row) throw new DomainError('NOT_FOUND', 'Not Found');
    const updated = await this.updateRow(callerOf(auth), row, patch);
    return definitionJson(updated, auth.store.ianaTimezone);
  }

  /**
   * The merchant admin's edit, by id: the same rules and the same background re-check as an app's
   * update (decisions §8.5, §8.12). The access of an app's definition is the app's to set; the
   * merchant's own takes the values merchantDefinitionIssues allows.
   */
  async updateForMerchant(store: StoreContext, id: bigint, patch: DefinitionInput): Promise<DefinitionRow> {
    const row = await this.getForMerchant(store, id);
    if (patch.access !== undefined) {
      const issues =
        row.appId === null
          ? merchantDefinitionIssues({ access: patch.access })
          : [
              makeIssue(
                'access.admin',
                'is set by the app that made this definition; the merchant admin changes its name, description and validations',
              ),
            ];
      if (issues.length > 0) throw failed(issues);
    }
    return this.updateRow({ kind: 'merchant' }, row, patch);
  }

  private async updateRow(caller: Caller, row: DefinitionRow, patch: DefinitionInput): Promise<DefinitionRow> {
    assertAllowed(row, caller, 'update');
    const result = validateDefinitionUpdate(normalizedOf(row), patch);
    if (!result.ok) throw failed(result.issues);
    if (result.validationsChanged) await this.checkReferences(row.storeId, result.references);
    const changesOf = (current: DefinitionRow): DefinitionChanges => {
      // Changed meanwhile (another update got the lock first): judged again on the row as it now is.
      const judged = sameVersion(current, row) ? result : validateDefinitionUpdate(normalizedOf(current), patch);
      if (!judged.ok) throw failed(judged.issues);
      return {
        name: judged.value.name,
        description: judged.value.description,
        validations: judged.value.validations,
        accessAdmin: judged.value.access?.admin ?? null,
        validationsChanged: judged.validationsChanged,
      };
    };
    const updated = await this.repository.update(row, changesOf, this.clock.now());
    if (!updated) throw new DomainError('NOT_FOUND', 'Not Found');
    return updated;
  }

  async remove(auth: AuthContext, query: { id?: string; delete_all_associated_metafields?: string }): Promise<void> {
    const id = parseIdParam(query.id);
    const deleteValues = parseFlag('delete_all_associated_metafields', query.delete_all_associated_metafields);
    const row = await this.repository.findById(auth.store.id, id);
    if (!row) throw new DomainError('NOT_FOUND', 'Not Found');
    await this.removeRow(callerOf(auth), row, deleteValues);
  }

  /** The merchant admin's delete, by id (decisions §8.4): values stay without a definition, or go with `deleteValues`. */
  async removeForMerchant(store: StoreContext, id: bigint, deleteValues: boolean): Promise<void> {
    await this.removeRow({ kind: 'merchant' }, await this.getForMerchant(store, id), deleteValues);
  }

  private async removeRow(caller: Caller, row: DefinitionRow, deleteValues: boolean): Promise<void> {
    assertAllowed(row, caller, 'delete');
    const deleted = await this.repository.delete(row, deleteValues, this.clock.now());
    if (!deleted) throw new DomainError('NOT_FOUND', 'Not Found');
  }

  /** A definition the merchant may see (decisions §8.7: PRIVATE ones are a 404, as to an app that may not see them). */
  async getForMerchant(store: StoreContext, id: bigint): Promise<DefinitionRow> {
    const row = await this.repository.findById(store.id, id);
    if (!row) throw new DomainError('NOT_FOUND', 'Not Found');
    assertAllowed(row, { kind: 'merchant' }, 'view');
    return row;
  }

  /** Why the merchant admin may see `row` but not do `action` (the API's 403 text); undefined when it may. */
  merchantRefusal(row: DefinitionRow, action: 'update' | 'delete'): string | undefined {
    return refusalOf(row, { kind: 'merchant' }, action);
  }

  /** How the definition behaves (decisions §8.7: an unset access acts as NONE, or MERCHANT_READ_WRITE in an app namespace). */
  effectiveAccess(row: DefinitionRow): string {
    return accessOf(row);
  }

  /** The merchant admin's table: the definitions of `ownerResource` it may see, `take` a page after `after`. */
  async merchantPage(store: StoreContext, ownerResource: string, after: bigint, take: number): Promise<MerchantDefinitionPage> {
    const rows = await this.visibleRows(store.id, { kind: 'merchant' }, take + 1, {
      direction: 'next',
      boundary: after,
      sinceId: 0n,
      ownerResource,
    });
    return { rows: rows.slice(0, take), more: rows.length > take };
  }

  /** decisions §8.6: the definitions the calling app may see, paginated like products (decisions §6). */
  list(auth: AuthContext, query: DefinitionListQuery, pageUrl: string): Promise<RenderedPage> {
    return this.page(auth.store, callerOf(auth), query, pageUrl, 'metafield_definitions');
  }

  /** decisions §10: the merchant admin's view, honouring access.admin (PRIVATE is hidden from it). */
  listForMerchant(store: StoreContext, query: DefinitionListQuery, pageUrl: string): Promise<RenderedPage> {
    return this.page(store, { kind: 'merchant' }, query, pageUrl, 'merchant_metafield_definitions');
  }

  private async page(
    store: StoreContext,
    caller: Caller,
    query: DefinitionListQuery,
    pageUrl: string,
    resource: string,
  ): Promise<RenderedPage> {
    const scope = { r: resource, s: store.id.toString() };
    const request = readPageRequest(query, scope, this.config, () => this.filtersOf(caller, query));
    const { owner_resource: ownerResource, namespace } = request.filters;
    return renderKeysetPage(request, 'metafield_definitions', scope, this.config.secret, pageUrl, {
      fetch: (take) =>
        this.visibleRows(store.id, caller, take, {
          direction: request.direction,
          boundary: BigInt(request.boundary),
          sinceId: BigInt(request.sinceId),
          ...(ownerResource !== undefined ? { ownerResource } : {}),
          ...(namespace !== undefined ? { namespace } : {}),
        }),
      idOf: (row) => row.id.toString(),
      render: (row) => JSON.stringify(pickFields(definitionJson(row, store.ianaTimezone), request.fields)),
      tooLarge: (row) =>
        `Metafield definition ${row.id.toString()} alone exceeds the 8 MB response limit; request fewer fields with the fields parameter`,
    });
  }

  /** Up to `take` rows past the boundary that `caller` may see, scanning past the others (decisions §8.7). */
  private async visibleRows(
    storeId: bigint,
    caller: Caller,
    take: number,
    where: Omit<DefinitionPageQuery, 'storeId' | 'take'>,
  ): Promise<DefinitionRow[]> {
    const out: DefinitionRow[] = [];
    let boundary = where.boundary;
    for (;;) {
      const batch = await this.repository.page({ ...where, storeId, boundary, take: Math.max(take, SCAN_BATCH) });
      for (const row of batch) {
        if (isVisible(row, caller)) out.push(row);
        if (out.length === take) return out;
      }
      const last = batch[batch.length - 1];
      if (last === undefined || batch.length < Math.max(take, SCAN_BATCH)) return out;
      boundary = last.id;
    }
  }

  /** The first request's filters, checked; the cursor carries them to later pages (decisions §6.2). */
  private filtersOf(caller: Caller, query: DefinitionListQuery): Record<string, string> {
    const filters: Record<string, string> = {};
    const owner = filterOf('owner_resource', query.owner_resource);
    if (owner !== undefined) {
      if (!(OWNER_RESOURCES as readonly string[]).includes(owner)) {
        throw new DomainError('INVALID_PARAMETER', `owner_resource: is not included in the list (${OWNER_RESOURCES.join(', ')})`);
      }
      filters['owner_resource'] = owner;
    }
    const namespace = filterOf('namespace', query.namespace);
    if (namespace !== undefined) {
      if (caller.kind === 'merchant' && namespace.startsWith('$app:')) {
        throw new DomainError(
          'INVALID_PARAMETER',
          'namespace: $app: names the calling app; the merchant view takes the stored form app--{app_id}--x',
        );
      }
      filters['namespace'] = caller.kind === 'app' ? expandAppNamespace(namespace, caller.appId.toString()) : namespace;
    }
    return filters;
  }

  /** decisions §8.14: metaobject_definition_id must name a metaobject definition of this store. */
  private async checkReferences(storeId: bigint, references: readonly DefinitionReference[]): Promise<void> {
    if (references.length === 0) return;
    const existing = await this.repository.existingMetaobjectDefinitions(
      storeId,
      referencedIds(references).map((id) => BigInt(id)),
    );
    const issues = checkDefinitionReferences(references, (id) => existing.has(id));
    if (issues.length > 0) throw failed(issues);
  }
}

function callerOf(auth: AuthContext): Caller {
  return { kind: 'app', appId: auth.appId };
}

function sameVersion(a: DefinitionRow, b: DefinitionRow): boolean {
  return a.updatedAt.getTime() === b.updatedAt.getTime() && a.rulesRevision === b.rulesRevision;
}
