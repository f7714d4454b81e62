import { adminContract } from '@platform/contract';
import {
  isAppRoute,
  type AppRoute,
  type AppRouteMutation,
  type AppRouter,
  type ClientInferResponseBody,
  type Prettify,
  type ZodInputOrType,
} from '@ts-rest/core';
import type { z } from 'zod';
import { linksOf, paginate, pageRef, type PageLinks, type PageRef } from './pagination';
import type { Send } from './transport';

/*
 * Every Admin route of the contract becomes a method of `client.admin`, named by its route key and
 * typed from the route with ts-rest's types: nothing here names a route, so a route added to the
 * contract is a method on the next build, and the enumeration test proves none is missing.
 */

export type AdminContract = typeof adminContract;

type SuccessStatus<R extends AppRoute> = Extract<keyof R['responses'], 200 | 201 | 202 | 203 | 204>;
/** The body of a 2xx answer of `R` (both bodies' union when a route has two, e.g. 200 and 201). */
export type SuccessBody<R extends AppRoute> = ClientInferResponseBody<R, SuccessStatus<R>>;

type IdentChar =
  | 'a'
  | 'b'
  | 'c'
  | 'd'
  | 'e'
  | 'f'
  | 'g'
  | 'h'
  | 'i'
  | 'j'
  | 'k'
  | 'l'
  | 'm'
  | 'n'
  | 'o'
  | 'p'
  | 'q'
  | 'r'
  | 's'
  | 't'
  | 'u'
  | 'v'
  | 'w'
  | 'x'
  | 'y'
  | 'z'
  | 'A'
  | 'B'
  | 'C'
  | 'D'
  | 'E'
  | 'F'
  | 'G'
  | 'H'
  | 'I'
  | 'J'
  | 'K'
  | 'L'
  | 'M'
  | 'N'
  | 'O'
  | 'P'
  | 'Q'
  | 'R'
  | 'S'
  | 'T'
  | 'U'
  | 'V'
  | 'W'
  | 'X'
  | 'Y'
  | 'Z'
  | '0'
  | '1'
  | '2'
  | '3'
  | '4'
  | '5'
  | '6'
  | '7'
  | '8'
  | '9'
  | '_';
type Ident<S extends string, Acc extends string = ''> = S extends `${infer C}${infer Rest}`
  ? C extends IdentChar
    ? Ident<Rest, `${Acc}${C}`>
    : Acc
  : Acc;
/**
 * The `:name` parameters of a path, a name ending where an identifier does (`/webhooks/:id.json` has
 * `id`), as the server's router reads them; ts-rest's own `ParamsFromUrl` would read `id.json`.
 */
export type PathParamNames<P extends string> = P extends `${string}:${infer Rest}` ? Ident<Rest> | PathParamNames<Rest> : never;

/** Path parameters the caller gives: the route's, without `version` (the client's). */
export type PathArgs<R extends AppRoute> = Omit<
  R extends { pathParams: infer P extends z.ZodTypeAny } ? z.input<P> : { [K in PathParamNames<R['path']>]: string | number },
  'version'
>;
/** Query values as the contract declares them (text), or numbers, booleans and arrays (joined with commas). */
export type QueryArgs<R extends AppRoute> = R extends { query: infer Q extends z.ZodTypeAny }
  ? { [K in keyof z.input<Q>]?: z.input<Q>[K] | number | boolean | readonly (string | number)[] | null }
  : never;
export type BodyArgs<R extends AppRoute> = R extends AppRouteMutation ? ZodInputOrType<R['body']> : never;

/** Per call: abort it, or add headers. */
export interface CallOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export type RouteArgs<R extends AppRoute> = Prettify<
  (keyof PathArgs<R> extends never ? { params?: Record<string, never> } : { params: PathArgs<R> }) &
    (R extends { query: z.ZodTypeAny } ? { query?: QueryArgs<R> } : unknown) &
    (R extends AppRouteMutation ? ([BodyArgs<R>] extends [undefined | null] ? unknown : { body: BodyArgs<R> }) : unknown) &
    CallOptions
>;

/**
 * A listing: marked `paginated` in its metadata, or taking `page_info` (spec, Pagination: every
 * paginated read does). The query key is what types it, since metadata spread from a shared object
 * loses the literal `true`.
 */
type IsPaginated<R extends AppRoute> = R['metadata'] extends { paginated: true }
  ? true
  : R extends { query: infer Q extends z.ZodTypeAny }
    ? 'page_info' extends keyof z.input<Q>
      ? true
      : false
    : false;

/** The runtime twin of `IsPaginated`. */
export function isPaginatedRoute(route: AppRoute): boolean {
  if ((route.metadata as { paginated?: unknown } | undefined)?.paginated === true) return true;
  // Look through refinements and wrappers (`.refine`, `.optional`) to the object's shape.
  let schema = route.query as { shape?: unknown; _def?: { schema?: unknown; innerType?: unknown } } | null | undefined;
  for (let depth = 0; schema && schema.shape === undefined && depth < 5; depth += 1) {
    schema = (schema._def?.schema ?? schema._def?.innerType) as typeof schema;
  }
  const shape = schema?.shape;
  return typeof shape === 'object' && shape !== null && 'page_info' in shape;
}

/** The records of a page: the one array of a listing's body. */
export type PageItem<R extends AppRoute> = SuccessBody<R>[keyof SuccessBody<R>] extends readonly (infer T)[] ? T : never;

/** A listing's body with its `link` header parsed: strings in `link`, parsed in `next` / `previous`. */
export type Page<R extends AppRoute> = SuccessBody<R> & {
  link: PageLinks;
  next: PageRef | undefined;
  previous: PageRef | undefined;
  traceId: string | undefined;
};

export type RouteResult<R extends AppRoute> = IsPaginated<R> extends true ? Page<R> : SuccessBody<R>;

/** "Every argument optional" is exactly `{} extends Args`. */
type NoArgsNeeded<R extends AppRoute> =
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the empty object is the point here
  {} extends RouteArgs<R> ? true : false;
type Call<R extends AppRoute> =
  NoArgsNeeded<R> extends true ? (args?: RouteArgs<R>) => Promise<RouteResult<R>> : (args: RouteArgs<R>) => Promise<RouteResult<R>>;

export interface PaginatedExtras<R extends AppRoute> {
  /** Every record: the first page for `args`, then each `next` link as it stands (filters are never sent again). */
  iterate(args?: RouteArgs<R>): AsyncGenerator<PageItem<R>, void, undefined>;
  /** The page at a `link` URL (or a `next`/`previous` ref), sent as it stands with the same token. */
  page(link: string | PageRef, options?: CallOptions): Promise<Page<R>>;
}

export type RouteMethod<R extends AppRoute> = Call<R> &
  (IsPaginated<R> extends true ? PaginatedExtras<R> : unknown) & { readonly route: R };

export type RouterMethods<T> = {
  [K in keyof T]: T[K] extends AppRoute ? RouteMethod<T[K]> : T[K] extends AppRouter ? RouterMethods<T[K]> : never;
};

export type AdminMethods = RouterMethods<AdminContract>;

export interface RouteContext {
  /** `{scheme}://{host}[/prefix]`, no trailing slash. */
  base: string;
  apiVersion: string;
  send: Send;
}

function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    search.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

function arrayKey(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  return Object.keys(body).find((key) => Array.isArray((body as Record<string, unknown>)[key]));
}

const ABSOLUTE = /^[a-z][a-z\d+.-]*:/i;

/** The URL of one call of `route`: the contract's path with the version and `params`, then `query`. */
export function routeUrl(ctx: RouteContext, route: AppRoute, params?: Record<string, unknown>, query?: Record<string, unknown>): string {
  const values: Record<string, unknown> = { ...params, version: ctx.apiVersion };
  // A parameter name ends where an identifier does (`:metafieldId.json`), as in the server's router.
  const path = route.path.replace(/:([A-Za-z_]\w*)/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined || value === null || value === '')
      throw new TypeError(`${route.method} ${route.path}: path parameter '${name}' is required`);
    return encodeURIComponent(String(value));
  });
  return `${ctx.base}${path}${queryString(query)}`;
}

type AnyArgs = { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown } & CallOptions;

function makeMethod(ctx: RouteContext, route: AppRoute): unknown {
  const paginated = isPaginatedRoute(route);
  const origin = new URL(ctx.base).origin;

  const toPage = (answer: Awaited<ReturnType<Send>>) => {
    const link = linksOf(answer.headers);
    return { ...(answer.body as object), link, next: pageRef(link.next), previous: pageRef(link.previous), traceId: answer.traceId };
  };

  const call = async (args: AnyArgs = {}) => {
    const url = routeUrl(ctx, route, args.params, args.query);
    const answer = await ctx.send({
      method: route.method,
      url,
      ...('body' in route && args.body !== undefined ? { body: args.body } : {}),
      ...(args.signal ? { signal: args.signal } : {}),
      ...(args.headers ? { headers: args.headers } : {}),
    });
    return paginated ? toPage(answer) : answer.body;
  };

  // The token goes only where the client was pointed: a link naming another origin (a proxy that
  // rewrote the host, a tampered header) is refused rather than followed with the credentials.
  const page = async (link: string | PageRef, options: CallOptions = {}) => {
    const url = typeof link === 'string' ? link : link.url;
    const target = new URL(url, `${ctx.base}/`);
    if (target.origin !== origin) {
      throw new TypeError(`page: ${target.origin} is not the client's origin ${origin}; the access token is not sent there`);
    }
    // An absolute link is sent as it stands (spec Pagination rule 4), not re-serialised.
    return toPage(
      await ctx.send({
        method: route.method,
        url: ABSOLUTE.test(url) ? url : target.toString(),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.headers ? { headers: options.headers } : {}),
      }),
    );
  };

  const method = Object.assign(call, { route });
  if (!paginated) return method;
  return Object.assign(method, {
    page,
    iterate: (args: AnyArgs = {}) =>
      paginate(async (next) => {
        // Later pages carry the first request's filters in their link (decisions §6.2): only the URL is sent.
        const options: CallOptions = {
          ...(args.signal ? { signal: args.signal } : {}),
          ...(args.headers ? { headers: args.headers } : {}),
        };
        const current = (next === undefined ? await call(args) : await page(next, options)) as Record<string, unknown> & {
          link: PageLinks;
        };
        const key = arrayKey(current);
        return { items: key ? (current[key] as unknown[]) : [], link: current.link };
      }),
  });
}

function walk(ctx: RouteContext, router: AppRouter): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(router)) {
    out[key] = isAppRoute(value) ? makeMethod(ctx, value) : walk(ctx, value as AppRouter);
  }
  return out;
}

/** One method per route of `router` (nested routers become nested objects). */
export function createRouterMethods<T extends AppRouter>(ctx: RouteContext, router: T): RouterMethods<T> {
  return walk(ctx, router) as RouterMethods<T>;
}

export function createAdminMethods(ctx: RouteContext): AdminMethods {
  return createRouterMethods(ctx, adminContract);
}
