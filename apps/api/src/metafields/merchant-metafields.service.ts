import { Injectable } from '@nestjs/common';
import { NON_EMPTY_VALUE_SINCE, RULES_ONLY, type Issue } from '@platform/domain';
import type { StoreContext } from '../access/request-context';
import { reasonsOf } from './metafield-render';
import { MetafieldValidators, valueAccess, writeDeniedMessage, type Caller, type DefinitionRow } from './metafield-rules';
import { MetafieldWritesService, type WriteEntry } from './metafield-writes.service';
import { MetafieldsRepository, type MetafieldRow } from './metafields.repository';
import { MetafieldsService } from './metafields.service';

const MERCHANT: Caller = { kind: 'merchant' };

/** The values of one product the merchant page shows at most (a product has a handful; the API pages them). */
export const PRODUCT_VALUES_SHOWN = 250;

/** A value as the merchant admin shows it: its definition, the re-check's verdict, and whether the merchant may change it. */
export interface MerchantValue {
  row: MetafieldRow;
  definition: DefinitionRow | undefined;
  /** The re-check's reasons (decisions §8.12); empty when valid or without a definition (no rules). */
  invalidReasons: string[];
  /**
   * The same value judged again against its definition's rules as they are now, for pages that word
   * problems from their data (`issue.rule`): only for a value marked invalid; empty when it now
   * passes (rules changed since, and the re-check has yet to clear it) or its problem needs the
   * store's data (a missing metaobject): then the reasons above are what there is to show.
   */
  invalidIssues: Issue[];
  /** Why the merchant may see but not change it (the API's 403 text); undefined when it may. */
  readOnly: string | undefined;
}

/**
 * The merchant admin's side of metafield values (issue 18): the same access table (decisions §8.7),
 * the same two validation levels and the same all-or-nothing write as the Admin API, with the
 * merchant as the caller. Values under a definition the merchant may not see (PRIVATE) are left out.
 */
@Injectable()
export class MerchantMetafieldsService {
  constructor(
    private readonly repository: MetafieldsRepository,
    private readonly values: MetafieldsService,
    private readonly writes: MetafieldWritesService,
    private readonly validators: MetafieldValidators,
  ) {}

  /** The product's values the merchant may see, with their verdicts (404 for another store's product). */
  async forProduct(store: StoreContext, productId: bigint): Promise<MerchantValue[]> {
    await this.values.requireProduct({ store }, productId);
    const rows = await this.repository.page({
      storeId: store.id,
      ownerId: productId,
      direction: 'next',
      boundary: 0n,
      sinceId: 0n,
      namespaces: undefined,
      key: undefined,
      take: PRODUCT_VALUES_SHOWN,
    });
    return this.visible(store.id, rows);
  }

  /**
   * Writes the merchant's changes to a product's values, all or nothing (decisions §8.9): both
   * validation levels under the strictest version's rules (decisions §2.6); an IssuesError names
   * each refused value by its entry's prefix.
   */
  async write(store: StoreContext, productId: bigint, entries: WriteEntry[]): Promise<void> {
    await this.values.requireProduct({ store }, productId);
    if (entries.length === 0) return;
    await this.writes.writeAll(entries, { storeId: store.id, caller: MERCHANT, version: NON_EMPTY_VALUE_SINCE });
  }

  /** Every value the last re-checks marked invalid that the merchant may see, `take` a page by id after `after`. */
  async invalid(store: StoreContext, after: bigint, take: number): Promise<{ values: MerchantValue[]; more: boolean }> {
    const found: MerchantValue[] = [];
    let since = after;
    for (;;) {
      const rows = await this.repository.storePage(store.id, false, since, take + 1);
      found.push(...(await this.visible(store.id, rows)));
      if (found.length > take || rows.length <= take) return { values: found.slice(0, take), more: found.length > take };
      since = rows[rows.length - 1]!.id;
    }
  }

  /** How many values the merchant may see are marked invalid (the home page's count). */
  async invalidCount(store: StoreContext): Promise<number> {
    const counts = await this.repository.invalidCountsByDefinition(store.id);
    const definitions = await this.repository.definitionsById(store.id, [...counts.keys()]);
    let total = 0;
    for (const d of definitions) if (this.canSee(d.namespace, d)) total += counts.get(d.id) ?? 0;
    return total;
  }

  /** Which of these products have a value the merchant may see marked invalid (the products list's flag). */
  async productsWithInvalidValues(store: StoreContext, productIds: readonly bigint[]): Promise<Set<bigint>> {
    const rows = await this.repository.invalidOfProducts(store.id, productIds);
    return new Set((await this.visible(store.id, rows)).map((v) => v.row.ownerId));
  }

  /** Why the merchant may not write values of `definition` (the API's 403 text); undefined when it may. */
  writeRefusal(definition: DefinitionRow): string | undefined {
    const write = valueAccess(MERCHANT, definition.namespace, definition, 'write_values');
    return write.outcome === 'allowed'
      ? undefined
      : writeDeniedMessage(
          write as Extract<typeof write, { outcome: 'forbidden' }>,
          definition.namespace,
          definition.key,
          definition,
          'merchant',
        );
  }

  private async visible(storeId: bigint, rows: MetafieldRow[]): Promise<MerchantValue[]> {
    const definitions = await this.repository.definitionsFor(storeId, rows);
    const out: MerchantValue[] = [];
    for (const row of rows) {
      const definition = definitions.find((d) => d.namespace === row.namespace && d.key === row.key);
      if (!this.canSee(row.namespace, definition)) continue;
      const write = valueAccess(MERCHANT, row.namespace, definition, 'write_values');
      const invalid = row.definitionId !== null && !row.valid;
      out.push({
        row,
        definition,
        invalidReasons: invalid ? reasonsOf(row.invalidReasons) : [],
        invalidIssues: invalid && definition ? this.judgedAgain(row.value, definition) : [],
        readOnly: write.outcome === 'forbidden' ? writeDeniedMessage(write, row.namespace, row.key, definition, 'merchant') : undefined,
      });
    }
    return out;
  }

  private judgedAgain(value: string, definition: DefinitionRow): Issue[] {
    const compiled = this.validators.forDefinition(definition);
    if (!compiled.ok) return [];
    const result = compiled.validator(value, RULES_ONLY);
    return result.ok ? [] : result.issues;
  }

  private canSee(namespace: string, definition: DefinitionRow | undefined): boolean {
    return valueAccess(MERCHANT, namespace, definition, 'read_values').outcome === 'allowed';
  }
}
