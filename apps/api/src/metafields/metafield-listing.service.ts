import { Injectable } from '@nestjs/common';
import type { ListMetafieldsQuery, OperatorMetafieldsQuery } from '@platform/contract';
import { buildLinkHeader, DomainError, parseLimit, parseSinceId } from '@platform/domain';
import type { Config } from '../config';
import { InjectConfig } from '../core/injection';
import { MAX_RESPONSE_BYTES } from '../http/wire';
import { readPageRequest, renderKeysetPage, type PageRequest } from '../http/keyset-pagination';
import type { AuthContext } from '../access/request-context';
import { StoresService } from '../stores/stores.service';
import { pickFields, renderMetafield, renderOperatorMetafield } from './metafield-render';
import { storedNamespace, valueAccess, type Caller, type DefinitionRow } from './metafield-rules';
import { MetafieldsRepository, type MetafieldRow } from './metafields.repository';

export interface Page {
  /** The whole `{"metafields":[...]}` body, serialised. */
  json: string | Buffer;
  link: string | undefined;
}

function valueOrThrow<T>(result: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!result.ok) throw new DomainError('INVALID_PARAMETER', result.message);
  return result.value;
}

const ENVELOPE = '{"metafields":[]}'.length;
const OPERATOR_DEFAULT_LIMIT = 1000;

/** Reads of many values: a product's values (Admin API) and a store's with verdicts (operator API). */
@Injectable()
export class MetafieldListingService {
  constructor(
    private readonly repository: MetafieldsRepository,
    private readonly stores: StoresService,
    @InjectConfig() private readonly config: Config,
  ) {}

  /**
   * The spec's Pagination section and decisions §6, as the product listing: keyset pages by
   * ascending id, a signed cursor carrying the first request's filters (since_id, namespace, key),
   * pages that shrink to stay under 8 MB. Values the app may not see are skipped (decisions §8.7),
   * so the keyset walks on until a page is full or the rows run out.
   */
  async listForProduct(auth: AuthContext, productId: bigint, query: ListMetafieldsQuery, pageUrl: string): Promise<Page> {
    const scope = { r: 'metafields', s: `${auth.store.id.toString()}:${productId.toString()}` };
    const request = readPageRequest(query, scope, this.config, () => {
      const filters: Record<string, string> = {};
      if (query.namespace !== undefined) filters.namespace = storedNamespace(query.namespace, auth.appId);
      if (query.key !== undefined) filters.key = query.key;
      return filters;
    });
    const caller: Caller = { kind: 'app', appId: auth.appId };
    const timeZone = auth.store.ianaTimezone;
    const page = await renderKeysetPage(request, 'metafields', scope, this.config.secret, pageUrl, {
      fetch: (take) => this.visibleValues(auth.store.id, productId, request, caller, take),
      idOf: ({ row }) => row.id.toString(),
      render: ({ row, definition }) => JSON.stringify(pickFields(renderMetafield(row, definition, timeZone), request.fields)),
      // A value is at most 128 KB (decisions §8.8), so one record alone never reaches the cap.
      tooLarge: ({ row }) => `Metafield ${row.id.toString()} alone exceeds the 8 MB response limit`,
    });
    return { json: page.json, link: page.link };
  }

  /** Rows past the boundary that the app may see (decisions §8.7): the keyset walks on until `take` are found or rows run out. */
  private async visibleValues(storeId: bigint, productId: bigint, request: PageRequest, caller: Caller, take: number) {
    const visible: { row: MetafieldRow; definition: DefinitionRow | undefined }[] = [];
    let from = BigInt(request.boundary);
    for (;;) {
      const rows = await this.repository.page({
        storeId,
        ownerId: productId,
        direction: request.direction,
        boundary: from,
        sinceId: BigInt(request.sinceId),
        namespaces: request.filters.namespace !== undefined ? [request.filters.namespace] : undefined,
        key: request.filters.key,
        take,
      });
      const definitions = await this.repository.definitionsFor(storeId, rows);
      for (const row of rows) {
        const definition = definitions.find((d) => d.namespace === row.namespace && d.key === row.key);
        if (valueAccess(caller, row.namespace, definition, 'read_values').outcome === 'allowed') visible.push({ row, definition });
      }
      if (visible.length >= take || rows.length < take) return visible.slice(0, take);
      from = rows[rows.length - 1]!.id;
    }
  }

  /**
   * decisions §10, §8.12: a store's values with their re-check verdicts, as the merchant admin sees
   * them (values under a definition the merchant may not view, PRIVATE, are left out). Keyset pages
   * by `since_id`; a `link` rel="next" is sent while more exist.
   */
  async listForStore(handle: string, query: OperatorMetafieldsQuery, pageUrl: string): Promise<Page> {
    const store = await this.stores.get(handle);
    // Larger default than the Admin API's 50: the merchant's check of verdicts usually wants them all.
    const limit = valueOrThrow(parseLimit(query.limit, { def: OPERATOR_DEFAULT_LIMIT }));
    let sinceId = BigInt(valueOrThrow(parseSinceId(query.since_id)));
    let valid: boolean | undefined;
    if (query.valid === 'true') valid = true;
    else if (query.valid === 'false') valid = false;
    else if (query.valid !== undefined) throw new DomainError('INVALID_PARAMETER', 'valid: must be true or false');

    const rendered: string[] = [];
    let bytes = ENVELOPE;
    let more = false;
    let lastSent: bigint | undefined;
    for (;;) {
      const rows = await this.repository.storePage(store.id, valid, sinceId, limit + 1);
      const definitions = await this.repository.definitionsFor(store.id, rows);
      for (const row of rows) {
        const definition = definitions.find((d) => d.namespace === row.namespace && d.key === row.key);
        if (valueAccess({ kind: 'merchant' }, row.namespace, definition, 'read_values').outcome !== 'allowed') continue;
        if (rendered.length === limit) {
          more = true;
          break;
        }
        const text = JSON.stringify(renderOperatorMetafield(row, definition, store.ianaTimezone));
        const size = Buffer.byteLength(text) + (rendered.length > 0 ? 1 : 0);
        if (bytes + size > MAX_RESPONSE_BYTES) {
          more = true;
          break;
        }
        bytes += size;
        rendered.push(text);
        lastSent = row.id;
      }
      if (more || rows.length <= limit) break;
      sinceId = rows[rows.length - 1]!.id;
    }
    const params = new URLSearchParams({ limit: String(limit), since_id: String(lastSent ?? 0n) });
    if (query.valid !== undefined) params.set('valid', query.valid);
    const link = more && lastSent !== undefined ? buildLinkHeader({ next: `${pageUrl}?${params.toString()}` }) : undefined;
    return { json: `{"metafields":[${rendered.join(',')}]}`, link };
  }
}
