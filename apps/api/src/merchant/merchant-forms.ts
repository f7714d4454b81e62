import type { FastifyInstance } from 'fastify';

/** Merchant form posts; only these routes take `application/x-www-form-urlencoded` bodies. */
export const MERCHANT_FORM_ROUTES: ReadonlySet<string> = new Set(['/admin/oauth/authorize', '/admin/sign-out']);
/** Merchant form posts with ids in their path (the redeliver button of an app's deliveries page). */
export const MERCHANT_FORM_PATTERNS: readonly RegExp[] = [/^\/admin\/apps\/\d{1,19}\/deliveries\/\d{1,19}\/redeliver$/];

export function isMerchantFormRoute(path: string): boolean {
  return MERCHANT_FORM_ROUTES.has(path) || MERCHANT_FORM_PATTERNS.some((pattern) => pattern.test(path));
}
/** A merchant form carries a few short fields; anything larger is not one of ours. */
const MAX_FORM_BYTES = 16 * 1024;

/**
 * HTML forms post `application/x-www-form-urlencoded`. The merchant pages' form routes read it
 * (fields to strings; a repeated field keeps its first value); every other route keeps refusing
 * it as a body that is not JSON (decisions §3.1), with the same 400 the JSON parser gives.
 */
export function installMerchantFormParser(fastify: FastifyInstance): void {
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: MAX_FORM_BYTES }, (request, body, done) => {
    const path = request.url.split('?')[0] ?? '';
    // decisions §3.1: an empty body is accepted whatever its Content-Type.
    if ((body as string).length === 0) return done(null, undefined);
    if (!isMerchantFormRoute(path)) {
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
