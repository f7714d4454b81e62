/*
 * A client generated from the platform's /openapi.json, with nothing of the platform's own code:
 * `schema.d.ts` is what openapi-typescript writes from the served document (`pnpm run generate`),
 * and openapi-fetch turns it into typed calls. The three helpers below do by hand what the document
 * states in words (info.description, "Clients generated from this document"): follow `link`, and
 * sign the OAuth token calls.
 */
import { createHmac } from 'node:crypto';
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

/** A client of every operation of the document, for one bearer token (an app's access token, or the operator token). */
export function platformClient(baseUrl: string, token?: string) {
  return createClient<paths>({ baseUrl, headers: token ? { authorization: `Bearer ${token}` } : {} });
}
export type PlatformClient = ReturnType<typeof platformClient>;

/** The URL of one relation (`next`, `previous`) in a `link` header: `<url>; rel="next", <url>; rel="previous"`. */
export function linkUrl(link: string | null, rel: 'next' | 'previous'): URL | undefined {
  for (const part of link?.split(',') ?? []) {
    const match = /^\s*<([^>]*)>\s*;\s*rel="([^"]*)"\s*$/.exec(part);
    if (match?.[2] === rel) return new URL(match[1]!);
  }
  return undefined;
}

export type ListProductsQuery = NonNullable<paths['/admin/openapi/{version}/products/products.json']['get']['parameters']['query']>;

/**
 * The query of the next page of a product listing, from its answer's `link` header; undefined on
 * the last page. The document: pass the URL's query parameters unchanged to the same operation.
 */
export function nextProductsQuery(response: Response): ListProductsQuery | undefined {
  const next = linkUrl(response.headers.get('link'), 'next');
  if (!next) return undefined;
  const query: ListProductsQuery = {};
  for (const [name, value] of next.searchParams) {
    if (name === 'limit') query.limit = Number(value);
    else if (name === 'page_info' || name === 'since_id' || name === 'fields') query[name] = value;
    else throw new Error(`link: ${name} is not a parameter of listProducts`);
  }
  return query;
}

/**
 * The three headers of a signed OAuth token call (decisions §5.2): `sign` is the lowercase hex
 * HMAC-SHA256, keyed with the app secret, of the raw body followed by the timestamp. `rawBody` must
 * be the exact text sent: pass it to openapi-fetch as the body's serialization too.
 */
export function signedHeaders(appKey: string, appSecret: string, rawBody: string, now = Date.now()) {
  const timestamp = String(now);
  const sign = createHmac('sha256', appSecret)
    .update(rawBody + timestamp)
    .digest('hex');
  return { appkey: appKey, timestamp, sign };
}
