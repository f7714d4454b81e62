import type { FastifyInstance } from 'fastify';

/**
 * The merchant pages' form posts, by route pattern: the only routes that take
 * `application/x-www-form-urlencoded` bodies. Each is gated before its body is read (a session of
 * the store, no foreign Origin; MerchantSessionsService) and reads at most MAX_FORM_BYTES.
 * `signedOut` is what a post without a session gets: a refusal page, or (sign-out) the home page.
 */
export const MERCHANT_FORMS: ReadonlyMap<string, { signedOut: 'refuse' | 'home' }> = new Map([
  ['/admin/oauth/authorize', { signedOut: 'refuse' }],
  ['/admin/sign-out', { signedOut: 'home' }],
  ['/admin/apps/:appId/deliveries/:deliveryId/redeliver', { signedOut: 'refuse' }],
] as const);

/** A merchant form carries a few short fields; anything larger is not one of ours. */
export const MAX_FORM_BYTES = 16 * 1024;

/**
 * HTML forms post `application/x-www-form-urlencoded`. The merchant pages' form routes read it
 * (fields to strings; a repeated field keeps its first value); every other route keeps refusing
 * it as a body that is not JSON (decisions §3.1), with the same 400 the JSON parser gives.
 */
export function installMerchantFormParser(fastify: FastifyInstance): void {
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: MAX_FORM_BYTES }, (request, body, done) => {
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
  });
}
