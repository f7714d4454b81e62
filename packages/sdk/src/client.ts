import type { ListedProduct, Product, ProductField, Shop } from '@platform/contract';
import { systemClock } from './clock';
import type { PageRef } from './pagination';
import { createAdminMethods, type AdminContract, type AdminMethods, type CallOptions, type Page } from './routes';
import { createTransport, emitter, type TransportOptions } from './transport';
import { deprecationNotice } from './versions';

export interface ClientOptions extends Omit<TransportOptions, 'accessToken'> {
  /** The store's domain, e.g. `demo.myplatform.com` (https is assumed unless a scheme is given). */
  storeDomain?: string;
  /** Where the API listens, e.g. `http://127.0.0.1:3000`; the token then identifies the store (decisions §1.3). */
  baseUrl?: string;
  /** The token, or a function giving the current one (a token store that refreshes, see `createOAuth`). */
  accessToken: string | (() => string | Promise<string>);
  /** e.g. `v20260901`; the service serves the newest 8 quarterly versions (decisions §2). */
  apiVersion: string;
  /**
   * Requests of one (app, store) share one pacing bucket in this process. With a string token the
   * key is the store and the token; with a token function give the key yourself (e.g. `${appKey}:${handle}`).
   */
  rateLimitKey?: string;
}

export interface ListProductsOptions extends CallOptions {
  /** Records per page, 1..1000 (default 50). */
  limit?: number;
  /** First page: records whose id is greater than this. */
  since_id?: string;
  /** Top-level fields to return (`id` always comes back), as an array or comma-separated text. */
  fields?: readonly (ProductField | (string & {}))[] | string;
  /** A cursor taken from a `link` URL; prefer `page(url)`, which sends the URL as it stands. */
  page_info?: string;
}

/**
 * The product a listing query returns: the whole product, or with `fields` only those (and `id`).
 * Field names given as a literal array are typed exactly; otherwise every field is optional.
 */
export type ProductsFor<Q> = 'fields' extends keyof Q
  ? Q extends { fields: readonly (infer F)[] }
    ? string extends F
      ? ListedProduct
      : Pick<Product, Extract<F, ProductField> | 'id'>
    : ListedProduct
  : Product;

export type ProductPage<P = Product> = Omit<Page<AdminContract['listProducts']>, 'products'> & { products: P[] };

export interface PlatformClient {
  /** Every Admin route of the contract, by route key, typed from it (`client.admin.createMetafieldDefinition({ body })`). */
  admin: AdminMethods;
  products: {
    /** One page of products, ascending id, with the parsed `link` header. */
    list<const Q extends ListProductsOptions = Record<never, never>>(query?: Q): Promise<ProductPage<ProductsFor<Q>>>;
    /** Every product: the first page for `query`, then each `next` link as it stands. */
    iterate<const Q extends ListProductsOptions = Record<never, never>>(query?: Q): AsyncGenerator<ProductsFor<Q>, void, undefined>;
    /** The page at a `link` URL (`next` or `previous`); the URL carries the first request's `fields`. */
    page(link: string | PageRef, options?: CallOptions): Promise<ProductPage<ListedProduct>>;
  };
  shop: {
    get(options?: CallOptions): Promise<Shop>;
  };
  readonly apiVersion: string;
  /** `{scheme}://{host}`, no trailing slash. */
  readonly baseUrl: string;
}

const SCHEME = /^[a-z][a-z\d+.-]*:\/\//i;

/** `https://{storeDomain}` (or the domain as given when it has a scheme), or `baseUrl`; no trailing slash. */
export function resolveBaseUrl(options: Pick<ClientOptions, 'storeDomain' | 'baseUrl'>): string {
  const { storeDomain, baseUrl } = options;
  if ((storeDomain === undefined) === (baseUrl === undefined)) {
    throw new TypeError('createClient: give exactly one of storeDomain or baseUrl');
  }
  const raw = storeDomain === undefined ? (baseUrl as string) : SCHEME.test(storeDomain) ? storeDomain : `https://${storeDomain}`;
  try {
    new URL(raw);
  } catch {
    throw new TypeError(`createClient: not a usable URL: ${JSON.stringify(raw)}`);
  }
  return raw.replace(/\/+$/, '');
}

function productQuery(query: ListProductsOptions = {}) {
  const { signal, headers, fields, ...rest } = query;
  return {
    query: { ...rest, ...(fields !== undefined ? { fields: typeof fields === 'string' ? fields : fields.join(',') } : {}) },
    ...(signal ? { signal } : {}),
    ...(headers ? { headers } : {}),
  };
}

let anonymous = 0;

export function createClient(options: ClientOptions): PlatformClient {
  const base = resolveBaseUrl(options);
  if (!options.accessToken) throw new TypeError('createClient: accessToken is required');
  if (!options.apiVersion) throw new TypeError('createClient: apiVersion is required');
  const clock = options.clock ?? systemClock;
  const notice = deprecationNotice(options.apiVersion, new Date(clock.now()));
  if (notice) {
    const emit = options.onEvent || options.logger ? emitter(options) : undefined;
    const event = { type: 'deprecation' as const, apiVersion: options.apiVersion, ...notice };
    if (emit) emit(event);
    else console.warn(`[platform-sdk] ${notice.message}`);
  }
  const key = typeof options.accessToken === 'string' ? options.accessToken : (options.rateLimitKey ?? `client-${(anonymous += 1)}`);
  const send = createTransport({ ...options, bucketKey: `${new URL(base).origin}|${key}` });
  const admin = createAdminMethods({ base, apiVersion: options.apiVersion, send });

  return {
    admin,
    products: {
      // With `fields`, the listing returns the requested fields (decisions §6.4), which is what ProductsFor says.
      list: (query) => admin.listProducts(productQuery(query)) as Promise<never>,
      iterate: (query) => admin.listProducts.iterate(productQuery(query)) as AsyncGenerator<never, void, undefined>,
      page: (link, callOptions) => admin.listProducts.page(link, callOptions),
    },
    shop: {
      get: async (callOptions) => (await admin.getShop(callOptions)).data,
    },
    apiVersion: options.apiVersion,
    baseUrl: base,
  };
}
