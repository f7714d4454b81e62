import { toId } from '../http/ids';
import { Injectable } from '@nestjs/common';
import type { MetafieldInput, MetafieldsSet, MetafieldUpdate } from '@platform/contract';
import { DomainError, formatIssues, makeIssue, NON_EMPTY_VALUE_SINCE, type Issue } from '@platform/domain';
import type { AuthContext } from '../access/request-context';
import { ProductsService } from '../products/products.service';
import { renderMetafield, type RenderedMetafield } from './metafield-render';
import { storedNamespace, valueAccess, writeDeniedMessage, type DefinitionRow } from './metafield-rules';
import { MetafieldWritesService, type WriteContext, type WriteEntry } from './metafield-writes.service';
import { MetafieldsRepository, OWNER_RESOURCE, type MetafieldRow } from './metafields.repository';

const PRODUCT_NOT_FOUND = 'Product not found';
const METAFIELD_NOT_FOUND = 'Metafield not found';
const PRODUCT_GID = /^gid:\/\/platform\/Product\/(?=\d)/;

/** Admin API values on products and the bulk set (decisions §8.9). */
@Injectable()
export class MetafieldsService {
  constructor(
    private readonly repository: MetafieldsRepository,
    private readonly writes: MetafieldWritesService,
    private readonly products: ProductsService,
  ) {}

  /** POST on a product: creates the value, or updates the one of that namespace and key (then `created` is false). */
  async create(auth: AuthContext, version: string | undefined, productId: bigint, input: MetafieldInput) {
    await this.requireProduct(auth, productId);
    const entry: WriteEntry = { prefix: '', ownerId: productId, ...input };
    const [written] = await this.writes.writeAll([entry], this.context(auth, version));
    return { created: written!.created, metafield: renderMetafield(written!.row, written!.definition, auth.store.ianaTimezone) };
  }

  async get(auth: AuthContext, productId: bigint, id: bigint): Promise<RenderedMetafield> {
    const { row, definition } = await this.visibleValue(auth, productId, id);
    return renderMetafield(row, definition, auth.store.ianaTimezone);
  }

  /** PUT: the value (and, without a definition, optionally the type); namespace and key identify it. */
  async update(auth: AuthContext, version: string | undefined, productId: bigint, id: bigint, input: MetafieldUpdate) {
    const { row, definition } = await this.visibleValue(auth, productId, id);
    this.requireWritable(auth, row, definition);
    const issues: Issue[] = [];
    if (input.namespace !== undefined && storedNamespace(input.namespace, auth.appId) !== row.namespace) {
      issues.push(makeIssue('namespace', `cannot be changed (it is ${row.namespace})`));
    }
    if (input.key !== undefined && input.key !== row.key) issues.push(makeIssue('key', `cannot be changed (it is ${row.key})`));
    if (issues.length > 0) throw new DomainError('VALIDATION_FAILED', formatIssues(issues));
    const entry: WriteEntry = {
      prefix: '',
      ownerId: productId,
      namespace: row.namespace,
      key: row.key,
      type: input.type,
      value: input.value,
      currentType: row.type,
    };
    const written = await this.writes.updateOne(row.id, entry, this.context(auth, version));
    return renderMetafield(written.row, written.definition, auth.store.ianaTimezone);
  }

  async remove(auth: AuthContext, productId: bigint, id: bigint): Promise<void> {
    const { row, definition } = await this.visibleValue(auth, productId, id);
    this.requireWritable(auth, row, definition);
    // Two deletes at once both find the value; the one that finds it gone answers as a later one would.
    if (!(await this.repository.deleteValue(row.id))) throw new DomainError('NOT_FOUND', METAFIELD_NOT_FOUND);
  }

  /**
   * decisions §8.9: 1 to 25 entries, all or nothing. Shapes are checked here (owner), then every
   * entry is validated before anything is written; problems name the entry: `metafields[3].value: ...`.
   */
  async set(auth: AuthContext, version: string | undefined, body: MetafieldsSet): Promise<RenderedMetafield[]> {
    const issues: Issue[] = [];
    const owners = body.metafields.map((m, i) => ownerIdOf(m.owner_resource, m.owner_id, `metafields[${i}].`, issues));
    const ids = owners.filter((o): o is bigint => o !== undefined);
    const existing = await this.products.existing(auth.store.id, ids);
    const seen = new Map<string, number>();
    const entries: WriteEntry[] = [];
    body.metafields.forEach((m, i) => {
      const owner = owners[i];
      if (owner === undefined) return;
      const prefix = `metafields[${i}].`;
      if (!existing.has(owner)) {
        issues.push(makeIssue(`${prefix}owner_id`, `product ${owner.toString()} does not exist`));
        return;
      }
      const identity = `${owner.toString()}\u0000${storedNamespace(m.namespace, auth.appId)}\u0000${m.key}`;
      const first = seen.get(identity);
      if (first !== undefined) {
        issues.push(makeIssue(`metafields[${i}]`, `has the same owner, namespace and key as metafields[${first}]`));
        return;
      }
      seen.set(identity, i);
      entries.push({ prefix, ownerId: owner, namespace: m.namespace, key: m.key, type: m.type, value: m.value });
    });
    // Owner problems and every entry's value problems are reported together, in entry order.
    if (issues.length > 0) await this.writes.plan(entries, this.context(auth, version), issues);
    const written = await this.writes.writeAll(entries, this.context(auth, version));
    return written.map((w) => renderMetafield(w.row, w.definition, auth.store.ianaTimezone));
  }

  /** A value of the product that this app may at least read; anything else is 404 (decisions §8.7). */
  async visibleValue(
    auth: AuthContext,
    productId: bigint,
    id: bigint,
  ): Promise<{ row: MetafieldRow; definition: DefinitionRow | undefined }> {
    await this.requireProduct(auth, productId);
    const row = await this.repository.findValue(auth.store.id, productId, id);
    if (!row) throw new DomainError('NOT_FOUND', METAFIELD_NOT_FOUND);
    const [definition] = await this.repository.definitionsFor(auth.store.id, [{ namespace: row.namespace, key: row.key }]);
    if (valueAccess({ kind: 'app', appId: auth.appId }, row.namespace, definition, 'read_values').outcome !== 'allowed') {
      throw new DomainError('NOT_FOUND', METAFIELD_NOT_FOUND);
    }
    return { row, definition };
  }

  async requireProduct(auth: Pick<AuthContext, 'store'>, productId: bigint): Promise<void> {
    if (!(await this.products.exists(auth.store.id, productId))) throw new DomainError('NOT_FOUND', PRODUCT_NOT_FOUND);
  }

  /** A value the app may see (visibleValue) but not change is 403: read-only access, or another app's namespace (decisions §8.2). */
  private requireWritable(auth: AuthContext, row: MetafieldRow, definition: DefinitionRow | undefined): void {
    const decision = valueAccess({ kind: 'app', appId: auth.appId }, row.namespace, definition, 'write_values');
    // visibleValue let the app read it, so a refusal here is a 403 (a 404 only if it could not).
    if (decision.outcome === 'not_found') throw new DomainError('NOT_FOUND', METAFIELD_NOT_FOUND);
    if (decision.outcome === 'forbidden')
      throw new DomainError('ACCESS_DENIED', writeDeniedMessage(decision, row.namespace, row.key, definition));
  }

  private context(auth: AuthContext, version: string | undefined): WriteContext {
    // The conventions hook sets the version on every Admin request; the fallback is the strict rule.
    return { storeId: auth.store.id, caller: { kind: 'app', appId: auth.appId }, version: version ?? NON_EMPTY_VALUE_SINCE };
  }
}

/** decisions §8.1, §3.5: only products hold values; owner_id a decimal id string (or the product's global id). */
function ownerIdOf(resource: string, raw: string, prefix: string, issues: Issue[]): bigint | undefined {
  if (resource !== OWNER_RESOURCE) {
    issues.push(makeIssue(`${prefix}owner_resource`, `must be ${OWNER_RESOURCE} (only products can hold metafield values)`));
    return undefined;
  }
  // A product's global id names it too (gid://platform/Product/{id}, decisions §3.5).
  const id = toId(raw.replace(PRODUCT_GID, ''));
  if (id === undefined) issues.push(makeIssue(`${prefix}owner_id`, 'must be a product id (a decimal string)'));
  return id;
}
