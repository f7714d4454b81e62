import { adminContract, type ListedProduct, type Product, type ProductField, type Shop } from '@platform/contract';
import { insertParamsIntoPath, type AppRoute, type ClientInferResponseBody } from '@ts-rest/core';
import { apiErrorFromResponse } from './errors';
import { linksOf, paginate, type PageLinks } from './pagination';

export interface ClientOptions {
  /** The store's domain, e.g. `demo.myplatform.com` (https is assumed unless a scheme is given). */
  storeDomain?: string;
  /** Where the API listens, e.g. `http://127.0.0.1:3000`; the token then identifies the store (decisions §1.3). */
  baseUrl?: string;
  accessToken: string;
  /** e.g. `v20260901`; the service serves the newest 8 quarterly versions (decisions §2). */
  apiVersion: string;
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
}

export interface ListProductsOptions {
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

export interface ProductPage<P = Product> {
  products: P[];
  link: PageLinks;
  traceId?: string;
}

export interface PlatformClient {
  products: {
    /** One page of products, ascending id, with the parsed `link` header. */
    list<const Q extends ListProductsOptions = Record<never, never>>(query?: Q): Promise<ProductPage<ProductsFor<Q>>>;
    /** Every product: the first page for `query`, then each `next` link as it stands. */
    iterate<const Q extends ListProductsOptions = Record<never, never>>(query?: Q): AsyncIterableIterator<ProductsFor<Q>>;
    /** The page at a `link` URL (`next` or `previous`); the URL carries the first request's `fields`. */
    page(url: string): Promise<ProductPage<ListedProduct>>;
  };
  shop: {
    get(): Promise<Shop>;
  };
}

/** `https://{storeDomain}` (or the domain as given when it has a scheme), or `baseUrl`; no trailing slash. */
export function resolveBaseUrl(options: Pick<ClientOptions, 'storeDomain' | 'baseUrl'>): string {
  const { storeDomain, baseUrl } = options;
  if ((storeDomain === undefined) === (baseUrl === undefined)) {
    throw new TypeError('createClient: give exactly one of storeDomain or baseUrl');
  }
  const raw =
    storeDomain === undefined ? (baseUrl as string) : /^[a-z][a-z\d+.-]*:\/\//i.test(storeDomain) ? storeDomain : `https://${storeDomain}`;
  try {
    new URL(raw);
  } catch {
    throw new TypeError(`createClient: not a usable URL: ${JSON.stringify(raw)}`);
  }
  return raw.replace(/\/+$/, '');
}

function listQuery(query: ListProductsOptions): URLSearchParams {
  const search = new URLSearchParams();
  if (query.limit !== undefined) search.set('limit', String(query.limit));
  if (query.since_id !== undefined) search.set('since_id', query.since_id);
  if (query.page_info !== undefined) search.set('page_info', query.page_info);
  if (query.fields !== undefined) search.set('fields', typeof query.fields === 'string' ? query.fields : query.fields.join(','));
  return search;
}

interface Sent<T> {
  body: T;
  headers: Headers;
}

/**
 * One authenticated request. Failures become `PlatformApiError`; network errors propagate as they are.
 * Bodies are typed from the contract but not re-validated, so fields the service adds later are kept.
 */
export function createSender(options: Pick<ClientOptions, 'accessToken' | 'fetch'>) {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') throw new TypeError('createClient: this runtime has no fetch; pass options.fetch');
  return async function send<T>(method: string, url: string, body?: unknown): Promise<Sent<T>> {
    const headers: Record<string, string> = { Authorization: `Bearer ${options.accessToken}`, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json; charset=utf-8';
    const response = await fetchImpl(url, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    if (!response.ok) throw await apiErrorFromResponse(response);
    return { body: (await response.json()) as T, headers: response.headers };
  };
}

type OkBody<R extends AppRoute> = ClientInferResponseBody<R, 200>;

export function createClient(options: ClientOptions): PlatformClient {
  const base = resolveBaseUrl(options);
  if (!options.accessToken) throw new TypeError('createClient: accessToken is required');
  if (!options.apiVersion) throw new TypeError('createClient: apiVersion is required');
  const send = createSender(options);

  // Paths come from the contract only; the version is the one path parameter Admin routes share.
  const call = <R extends AppRoute>(route: R, search?: URLSearchParams) => {
    const params = { version: encodeURIComponent(options.apiVersion) };
    const query = search?.toString();
    const url = `${base}${insertParamsIntoPath<string>({ path: route.path, params })}${query ? `?${query}` : ''}`;
    return send<OkBody<R>>(route.method, url);
  };

  const toPage = ({ body, headers }: Sent<OkBody<typeof adminContract.listProducts>>): ProductPage<ListedProduct> => ({
    products: body.products,
    link: linksOf(headers),
    traceId: headers.get('traceId') ?? undefined,
  });

  // The token goes only where the client was pointed: a link naming another origin (a proxy that
  // rewrote the host, a tampered header) is refused rather than followed with the credentials.
  const origin = new URL(base).origin;
  const page = async (url: string) => {
    const target = new URL(url, `${base}/`);
    if (target.origin !== origin) {
      throw new TypeError(`page: ${target.origin} is not the client's origin ${origin}; the access token is not sent there`);
    }
    // An absolute link is sent as it stands (spec Pagination rule 4), not re-serialised.
    return toPage(await send(adminContract.listProducts.method, /^[a-z][a-z\d+.-]*:/i.test(url) ? url : target.toString()));
  };
  // With `fields`, the listing returns the requested fields (decisions §6.4), which is what ProductsFor says.
  const list = async <Q extends ListProductsOptions>(query?: Q) =>
    toPage(await call(adminContract.listProducts, listQuery(query ?? {}))) as ProductPage<ProductsFor<Q>>;

  return {
    products: {
      list,
      iterate: <Q extends ListProductsOptions>(query?: Q) =>
        paginate(async (next) => {
          // Later pages carry the first request's filters in their link (decisions §6.2).
          const current = next === undefined ? await list(query) : ((await page(next)) as ProductPage<ProductsFor<Q>>);
          return { items: current.products, link: current.link };
        }),
      page,
    },
    shop: {
      get: async () => (await call(adminContract.getShop)).body.data,
    },
  };
}
