import type { FastifyInstance } from 'fastify';

/** A merchant form carries a few short fields; anything larger is not one of ours. */
export const MAX_FORM_BYTES = 16 * 1024;
/**
 * The forms that carry metafield rules or values: a rule value may be 300,000 characters (spec),
 * a json value 128 KB (decisions §8.8), and URL encoding can triple them.
 */
export const MAX_METAFIELD_FORM_BYTES = 1024 * 1024;

export interface MerchantForm {
  /** What a post without a session gets: the sign-in page (401), or (sign-out) the home page. */
  signedOut: 'refuse' | 'home';
  /** The most bytes its body may have (413 page beyond). */
  maxBytes: number;
}

const form = (maxBytes = MAX_FORM_BYTES, signedOut: MerchantForm['signedOut'] = 'refuse'): MerchantForm => ({ signedOut, maxBytes });

/**
 * The merchant pages' form posts, by route pattern: the only routes that take
 * `application/x-www-form-urlencoded` bodies. Each is gated before its body is read (a session of
 * the store, no foreign Origin; MerchantSessionsService) and reads at most its `maxBytes`.
 */
export const MERCHANT_FORMS: ReadonlyMap<string, MerchantForm> = new Map([
  ['/admin/oauth/authorize', form()],
  ['/admin/sign-out', form(MAX_FORM_BYTES, 'home')],
  ['/admin/apps/:appId/deliveries/:deliveryId/redeliver', form()],
  ['/admin/apps/:appId/uninstall', form()],
  ['/admin/private_apps', form()],
  ['/admin/private_apps/:appId/refresh', form()],
  ['/admin/private_apps/:appId/delete', form()],
  ['/admin/metafield_definitions', form(MAX_METAFIELD_FORM_BYTES)],
  ['/admin/metafield_definitions/:id', form(MAX_METAFIELD_FORM_BYTES)],
  ['/admin/metafield_definitions/:id/delete', form()],
  ['/admin/products/:id/metafields', form(MAX_METAFIELD_FORM_BYTES)],
]);

/** The largest form body of any route: the parser's own limit (each route's gate cuts at its own first). */
const LARGEST_FORM_BYTES = Math.max(...[...MERCHANT_FORMS.values()].map((f) => f.maxBytes));

/**
 * HTML forms post `application/x-www-form-urlencoded`. The merchant pages' form routes read it
 * (fields to strings; a repeated field keeps its first value); every other route keeps refusing
 * it as a body that is not JSON (decisions §3.1), with the same 400 the JSON parser gives.
 */
export function installMerchantFormParser(fastify: FastifyInstance): void {
  fastify.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: LARGEST_FORM_BYTES },
    (request, body, done) => {
      // decisions §3.1: an empty body is accepted whatever its Content-Type.
      if ((body as string).length === 0) return done(null, undefined);
      if (request.is404 || !MERCHANT_FORMS.has(request.routeOptions.url ?? '')) {
        const error = new Error(`Content-Type must be application/json; charset=utf-8 (got '${request.headers['content-type'] ?? ''}')`);
        return done(Object.assign(error, { statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' }), undefined);
      }
      const fields: Record<string, string> = {};
      for (const [name, value] of new URLSearchParams(body as string)) {
        if (!(name in fields)) fields[name] = value;
      }
      done(null, fields);
    },
  );
}
