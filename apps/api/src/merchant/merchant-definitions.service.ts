import { Injectable } from '@nestjs/common';
import type { MetafieldDefinition as DefinitionRow } from '@platform/db';
import { DomainError, OWNER_RESOURCES, type DefinitionInput } from '@platform/domain';
import { MetafieldDefinitionsService } from '../metafields/metafield-definitions.service';
import { MerchantMetafieldsService, type MerchantValue } from '../metafields/merchant-metafields.service';
import { MerchantReadModel } from './merchant.read-model';
import type { MerchantContext } from './merchant-session.guard';
import type { DefinitionItem } from './pages/definitions.page';

/** Definitions a page of the merchant's table shows. */
export const DEFINITIONS_PER_PAGE = 100;
/** Invalid values a page shows. */
export const INVALID_PER_PAGE = 100;

export interface InvalidValueItem extends MerchantValue {
  productTitle: string;
}

/**
 * The merchant's metafield definitions and invalid values (issue 18, 1 and 3), through the
 * definitions feature's own service: the same domain checks, messages and background re-check as
 * the Admin API, with the merchant as the caller (decisions §8.7: PRIVATE ones are never shown).
 */
@Injectable()
export class MerchantDefinitionsService {
  constructor(
    private readonly definitions: MetafieldDefinitionsService,
    private readonly values: MerchantMetafieldsService,
    private readonly read: MerchantReadModel,
  ) {}

  /** An owner resource of the query (products when absent); anything else is a 400 page. */
  ownerOf(raw: unknown): string {
    if (raw === undefined || raw === '') return 'products';
    if (typeof raw === 'string' && (OWNER_RESOURCES as readonly string[]).includes(raw)) return raw;
    throw new DomainError('INVALID_PARAMETER', `owner_resource: is not included in the list (${OWNER_RESOURCES.join(', ')})`);
  }

  async page(ctx: MerchantContext, owner: string, after: bigint): Promise<{ items: DefinitionItem[]; next: bigint | undefined }> {
    const page = await this.definitions.merchantPage(ctx.store, owner, after, DEFINITIONS_PER_PAGE);
    const items = await this.items(page.rows);
    return { items, next: page.more ? page.rows[page.rows.length - 1]?.id : undefined };
  }

  async get(ctx: MerchantContext, id: bigint): Promise<DefinitionItem> {
    const [item] = await this.items([await this.definitions.getForMerchant(ctx.store, id)]);
    return item!;
  }

  create(ctx: MerchantContext, input: DefinitionInput): Promise<DefinitionRow> {
    return this.definitions.createForMerchant(ctx.store, input);
  }

  update(ctx: MerchantContext, id: bigint, patch: DefinitionInput): Promise<DefinitionRow> {
    return this.definitions.updateForMerchant(ctx.store, id, patch);
  }

  remove(ctx: MerchantContext, id: bigint, deleteValues: boolean): Promise<void> {
    return this.definitions.removeForMerchant(ctx.store, id, deleteValues);
  }

  async invalid(ctx: MerchantContext, after: bigint): Promise<{ items: InvalidValueItem[]; next: bigint | undefined }> {
    const { values, more } = await this.values.invalid(ctx.store, after, INVALID_PER_PAGE);
    const titles = await this.read.productTitles(ctx.store.id, [...new Set(values.map((v) => v.row.ownerId))]);
    const items = values.map((v) => ({ ...v, productTitle: titles.get(v.row.ownerId) ?? `Product ${v.row.ownerId.toString()}` }));
    return { items, next: more ? values[values.length - 1]?.row.id : undefined };
  }

  invalidCount(ctx: MerchantContext): Promise<number> {
    return this.values.invalidCount(ctx.store);
  }

  private async items(rows: DefinitionRow[]): Promise<DefinitionItem[]> {
    const names = await this.read.appNames([...new Set(rows.flatMap((r) => (r.appId === null ? [] : [r.appId])))]);
    return rows.map((row) => ({
      row,
      maker: row.appId === null ? undefined : (names.get(row.appId) ?? `App #${row.appId.toString()} (removed)`),
      access: this.definitions.effectiveAccess(row),
      noEdit: this.definitions.merchantRefusal(row, 'update'),
      noDelete: this.definitions.merchantRefusal(row, 'delete'),
    }));
  }
}
