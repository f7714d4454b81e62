import { Injectable } from '@nestjs/common';
import {
  DomainError,
  joinIssues,
  MAX_PRODUCT_HANDLE,
  MAX_PRODUCTS_PER_CREATE,
  OUT_OF_STORED_RANGE,
  parseStoredInstant,
  PRODUCT_DECIMAL,
} from '@platform/domain';
import { MAX_RESPONSE_BYTES } from '../http/wire';
import { ClockService } from '../core/clock.service';
import { Transactions } from '../core/transactions';
import { StoresService } from '../stores/stores.service';
import { mergeProductInput, type ProductInput, type VariantInput } from './product-document';
import { ProductsRepository } from './products.repository';

const DECIMAL = PRODUCT_DECIMAL;
const MAX_BULK = MAX_PRODUCTS_PER_CREATE;
const MAX_HANDLE = MAX_PRODUCT_HANDLE;
/**
 * decisions §3.4: the answer echoes what was written and no answer exceeds 8 MB, so a write whose
 * echo would is refused before it commits (422), never committed and then refused.
 */
function checkEcho(field: string): (docs: readonly (string | Buffer)[]) => void {
  return (docs) => {
    let bytes = 16;
    for (const doc of docs) bytes += (typeof doc === 'string' ? Buffer.byteLength(doc) : doc.length) + 1;
    if (bytes > MAX_RESPONSE_BYTES) {
      throw new DomainError(
        'VALIDATION_FAILED',
        `${field}: the answer would exceed 8 MB (${bytes} bytes rendered); send ${docs.length > 1 ? 'fewer products per request' : 'a smaller product'}`,
      );
    }
  };
}

function checkInput(input: Partial<ProductInput>, prefix: string, issues: { field: string; message: string }[]): void {
  if (input.title !== undefined && !String(input.title).trim()) issues.push({ field: `${prefix}title`, message: "can't be blank" });
  // Titles make handles of at most 255 characters (slugify); a handle given must fit the same bound,
  // which is also what an index entry can hold on PostgreSQL (a longer one failed there with a 500).
  if (typeof input.handle === 'string' && [...input.handle].length > MAX_HANDLE) {
    issues.push({ field: `${prefix}handle`, message: `is too long (maximum is ${MAX_HANDLE} characters)` });
  }
  if (input.published_at) {
    const parsed = parseStoredInstant(input.published_at);
    if (!parsed.ok) {
      const message = parsed.message === OUT_OF_STORED_RANGE ? parsed.message : 'must be an ISO 8601 time with an offset or Z';
      issues.push({ field: `${prefix}published_at`, message });
    }
  }
  (input.variants ?? []).forEach((variant: VariantInput, i) => {
    for (const key of ['price', 'compare_at_price', 'weight', 'cost'] as const) {
      const value = variant[key];
      if (value !== undefined && value !== null && value !== '' && !DECIMAL.test(String(value))) {
        issues.push({ field: `${prefix}variants[${i}].${key}`, message: 'must be a decimal number' });
      }
    }
  });
}

/** Operator writes of products (decisions §10): the merchant admin's side of the catalogue. */
@Injectable()
export class ProductsWriteService {
  constructor(
    private readonly repository: ProductsRepository,
    private readonly stores: StoresService,
    private readonly clock: ClockService,
    private readonly transactions: Transactions,
  ) {}

  /** The listing documents written, in input order, as their bytes. */
  async create(handle: string, inputs: ProductInput[]): Promise<Buffer[]> {
    const store = await this.stores.get(handle);
    if (inputs.length === 0 || inputs.length > MAX_BULK) {
      throw new DomainError('VALIDATION_FAILED', `products: must hold 1 to ${MAX_BULK} products`);
    }
    const issues: { field: string; message: string }[] = [];
    inputs.forEach((input, i) => checkInput(input, inputs.length > 1 ? `products[${i}].` : '', issues));
    if (issues.length > 0) throw new DomainError('VALIDATION_FAILED', joinIssues(issues));
    // The answer is what was written: the listing documents rendered for the insert, no read-back.
    // One transaction: the store's catalog revision moves first (so no cached page outlives the
    // commit; on SQLite it also takes the write lock that allocateIds needs held), then the rows.
    const now = this.clock.now();
    return this.transactions.run(
      async (tx) => {
        await this.stores.bumpCatalogRevision(tx, store.id);
        return this.repository.createMany(tx, store, inputs, now, checkEcho(inputs.length > 1 ? 'products' : 'product'));
      },
      { timeout: 120_000, maxWait: 30_000 },
    );
  }

  async update(handle: string, id: bigint, patch: Partial<ProductInput>): Promise<string> {
    const store = await this.stores.get(handle);
    // An unknown product is 404 before its body is judged (as every route here answers).
    if (!(await this.repository.findOne(store.id, id))) throw new DomainError('NOT_FOUND', 'Product not found');
    const issues: { field: string; message: string }[] = [];
    checkInput(patch, '', issues);
    if (issues.length > 0) throw new DomainError('VALIDATION_FAILED', joinIssues(issues));
    const parts = {
      images: patch.images !== undefined,
      media: patch.media !== undefined,
      options: patch.options !== undefined,
      variants: patch.variants !== undefined,
    };
    // The patch is merged into the row as it is under the lock, so a PATCH at the same time is
    // never undone, and the answer is this PATCH's write, not a later one's. The row's lock first,
    // then the store's catalog revision, in one transaction.
    const now = this.clock.now();
    const written = await this.transactions.run(
      async (tx) => {
        if (!(await this.repository.lock(tx, store.id, id))) return undefined;
        await this.stores.bumpCatalogRevision(tx, store.id);
        return this.repository.replace(
          tx,
          store,
          id,
          now,
          (row) => ({ input: mergeProductInput(documentToInput(row.doc, row.published_at), patch), parts }),
          checkEcho('product'),
        );
      },
      { timeout: 60_000, maxWait: 30_000 },
    );
    if (!written) throw new DomainError('NOT_FOUND', 'Product not found');
    return written;
  }
}

/** The stored document read back as the input that produced it (for merging a PATCH). */
export function documentToInput(doc: string, publishedAt: Date | string | number | null): ProductInput {
  const d = JSON.parse(doc) as Record<string, unknown> & {
    images: { src: string; alt: string }[];
    media: { src: string; alt: string; caption: string; content_type: string; preview_image: { src: string } }[];
    options: { name: string; values: string[] }[];
    variants: (VariantInput & Record<string, unknown>)[];
  };
  const { images, media, options, variants, image: _i, featured_media: _f, path: _p, ...scalars } = d;
  return {
    ...(scalars as unknown as ProductInput),
    published_at: publishedAt === null ? null : new Date(publishedAt).toISOString(),
    images: images.map(({ src, alt }) => ({ src, alt })),
    media: media.map(({ src, alt, caption, content_type, preview_image }) => ({ src, alt, caption, content_type, preview_image })),
    options: options.map(({ name, values }) => ({ name, values })),
    variants: variants.map(
      ({ id: _id, product_id: _pid, inventory_item_id: _iid, position: _pos, image: _img, ...rest }) => rest as VariantInput,
    ),
  };
}
