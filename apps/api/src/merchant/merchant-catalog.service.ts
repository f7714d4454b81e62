import { Injectable } from '@nestjs/common';
import { DomainError, type Issue } from '@platform/domain';
import { MetafieldDefinitionsService } from '../metafields/metafield-definitions.service';
import { MerchantMetafieldsService, PRODUCT_VALUES_SHOWN } from '../metafields/merchant-metafields.service';
import type { WriteEntry } from '../metafields/metafield-writes.service';
import { ResourceFeedbackService } from '../resource-feedback/resource-feedback.service';
import { MerchantReadModel, type FeedbackState, type ProductRecord } from './merchant.read-model';
import type { FormFields, MerchantContext } from './merchant-session.guard';
import { changedValue } from './value-form';

/** Products per page of the merchant's products list (as before issue 18). */
export const PRODUCTS_PER_PAGE = 50;

/** One metafield of the product page: a definition the merchant may see, or a value without one. */
export interface ValueField {
  /** The form field's name: `d{definition id}` or `m{value id}` (never a namespace the form could forge). */
  id: string;
  label: string;
  namespace: string;
  key: string;
  type: string;
  description: string | null;
  /** The stored value; undefined when the product has none yet. */
  stored: string | undefined;
  /** The re-check's reasons it is invalid (decisions §8.12), each naming the rule. */
  invalidReasons: string[];
  /** The same problems as data, judged again (MerchantValue.invalidIssues), for their sentences. */
  invalidIssues: readonly Issue[];
  /** Why the merchant may not change it (the API's 403 text); undefined when it may. */
  readOnly: string | undefined;
}

export interface ProductListQuery {
  title: string | undefined;
  requireActions: boolean;
  after: bigint | undefined;
  before: bigint | undefined;
}

export interface ProductListRow {
  id: bigint;
  title: string;
  feedback: FeedbackState | undefined;
  invalidValue: boolean;
}

export interface ProductList {
  rows: ProductListRow[];
  previous: bigint | undefined;
  next: bigint | undefined;
}

/**
 * The merchant's products (issue 18, 0 and 2): the list with its filters and flags, a product's
 * fields and metafield values, and saving the values the merchant changed, all or nothing through
 * the metafields feature's own write (decisions §8.9).
 */
@Injectable()
export class MerchantCatalogService {
  constructor(
    private readonly read: MerchantReadModel,
    private readonly values: MerchantMetafieldsService,
    private readonly definitions: MetafieldDefinitionsService,
    private readonly feedback: ResourceFeedbackService,
  ) {}

  async list(ctx: MerchantContext, q: ProductListQuery): Promise<ProductList> {
    if (q.after !== undefined && q.before !== undefined)
      throw new DomainError('INVALID_PARAMETER', 'after, before: give one of them, not both');
    const backwards = q.before !== undefined;
    const fetched = await this.read.products({
      storeId: ctx.store.id,
      title: q.title,
      requireActions: q.requireActions,
      direction: backwards ? 'prev' : 'next',
      boundary: (backwards ? q.before : q.after) ?? 0n,
      take: PRODUCTS_PER_PAGE + 1,
    });
    const more = fetched.length > PRODUCTS_PER_PAGE;
    const page = fetched.slice(0, PRODUCTS_PER_PAGE).map((r) => ({ id: BigInt(r.id), title: r.title }));
    if (backwards) page.reverse();
    const ids = page.map((r) => r.id);
    const [states, invalid] = await Promise.all([
      this.read.feedbackStates(ctx.store.id, ids),
      this.values.productsWithInvalidValues(ctx.store, ids),
    ]);
    const first = ids[0];
    const last = ids[ids.length - 1];
    return {
      rows: page.map((r) => ({ ...r, feedback: states.get(r.id), invalidValue: invalid.has(r.id) })),
      // Going forwards, a page after some id has one before it; going backwards, the page just came from after.
      previous: first !== undefined && (backwards ? more : q.after !== undefined) ? first : undefined,
      next: last !== undefined && (backwards || more) ? last : undefined,
    };
  }

  productsRequiringAction(ctx: MerchantContext): Promise<number> {
    return this.read.productsRequiringAction(ctx.store.id);
  }

  /** A product of this store (404 page otherwise). */
  async product(ctx: MerchantContext, id: bigint): Promise<ProductRecord> {
    const product = await this.read.product(ctx.store.id, id);
    if (!product) throw new DomainError('NOT_FOUND', 'Product not found');
    return product;
  }

  /**
   * The product's metafields as the page edits them: every product definition the merchant may see
   * (with the product's value, if any), then values without a definition (basic check only).
   */
  async fields(ctx: MerchantContext, productId: bigint): Promise<ValueField[]> {
    const [definitions, values] = await Promise.all([
      this.definitions.merchantPage(ctx.store, 'products', 0n, PRODUCT_VALUES_SHOWN),
      this.values.forProduct(ctx.store, productId),
    ]);
    const fields: ValueField[] = definitions.rows.map((d) => {
      const value = values.find((v) => v.row.namespace === d.namespace && v.row.key === d.key);
      return {
        id: `d${d.id.toString()}`,
        label: d.name,
        namespace: d.namespace,
        key: d.key,
        type: d.type,
        description: d.description,
        stored: value?.row.value,
        invalidReasons: value?.invalidReasons ?? [],
        invalidIssues: value?.invalidIssues ?? [],
        readOnly: value ? value.readOnly : this.values.writeRefusal(d),
      };
    });
    for (const v of values) {
      if (v.definition) continue;
      fields.push({
        id: `m${v.row.id.toString()}`,
        label: `${v.row.namespace}.${v.row.key}`,
        namespace: v.row.namespace,
        key: v.row.key,
        type: v.row.type,
        description: null,
        stored: v.row.value,
        invalidReasons: [],
        invalidIssues: [],
        readOnly: v.readOnly,
      });
    }
    return fields;
  }

  /**
   * Writes what the merchant changed, all or nothing (decisions §8.9). An IssuesError names each
   * refused field by its id (`d12.value: ...`); read-only fields are never written.
   */
  async save(ctx: MerchantContext, productId: bigint, fields: ValueField[], form: FormFields): Promise<number> {
    const entries: WriteEntry[] = [];
    for (const field of fields) {
      if (field.readOnly !== undefined) continue;
      const value = changedValue(form, field.id, field.type, field.stored);
      if (value === undefined) continue;
      entries.push({ prefix: `${field.id}.`, ownerId: productId, namespace: field.namespace, key: field.key, type: field.type, value });
    }
    await this.values.write(ctx.store, productId, entries);
    return entries.length;
  }

  /** Every app's feedback on the product (issue 9). */
  feedbackOf(ctx: MerchantContext, productId: bigint) {
    return this.feedback.listForProduct(ctx.store, productId);
  }
}
