import { checkIdempotencyKey, idempotencyFingerprint } from '@platform/domain';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { matchedAdminRoute } from '../http/admin-route';
import { sendError } from '../http/conventions';
import { OPERATOR_PREFIX } from '../http/wire';
import type { IdempotencyClaim, IdempotencyService } from './idempotency.service';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * Whose key a POST's `Idempotency-Key` is: the app on the store (the Admin API, known once the
 * access check has run), or the operator on the store its path names. Other routes (OAuth token
 * calls, merchant pages) take no key.
 */
function scopeOf(request: FastifyRequest): string | undefined {
  if (matchedAdminRoute(request) !== undefined) {
    return request.auth ? `app:${request.auth.appId}:store:${request.auth.store.id}` : undefined;
  }
  const route = request.is404 ? undefined : request.routeOptions.url;
  if (route?.startsWith(OPERATOR_PREFIX)) {
    const handle = (request.params as { handle?: unknown } | undefined)?.handle;
    return `operator:store:${typeof handle === 'string' ? handle : ''}`;
  }
  return undefined;
}

/** Every occurrence of the header, as sent (Node joins repeated headers into one value). */
function occurrences(request: FastifyRequest): string[] {
  const raw = request.raw.rawHeaders;
  const values: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'idempotency-key') values.push(raw[i + 1]!);
  }
  return values;
}

/**
 * docs/idempotency.md, as Fastify hooks on every route. `preHandler` runs after the access check and
 * the body's parsing, before the handler: a repeat is answered from the store (or refused) without
 * running it. `onSend` keeps the first answer as it leaves (it runs even when the client has gone).
 */
export function installIdempotency(fastify: FastifyInstance, service: IdempotencyService): void {
  const claims = new WeakMap<FastifyRequest, IdempotencyClaim>();

  fastify.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST') return;
    const scope = scopeOf(request);
    if (scope === undefined) return;
    const check = checkIdempotencyKey(occurrences(request));
    if (!check.ok) return sendError(reply, 400, check.message);
    if (check.key === undefined) return;
    const fingerprint = idempotencyFingerprint({ method: request.method, url: request.url, body: request.body });
    let start: Awaited<ReturnType<IdempotencyService['start']>>;
    try {
      start = await service.start(scope, check.key, fingerprint);
    } catch (error) {
      // Running the request unguarded could write it twice; the client retries with the same key.
      request.log.error({ err: error }, 'idempotency key store unavailable');
      return sendError(reply.header('Retry-After', '1'), 503, 'The Idempotency-Key could not be checked; retry shortly with the same key');
    }
    switch (start.kind) {
      case 'run':
        claims.set(request, start.claim);
        return;
      case 'replay':
        return reply.code(start.status).header(IDEMPOTENT_REPLAYED_HEADER, 'true').send(start.body);
      case 'refuse':
        if (start.retryAfterSeconds !== undefined) void reply.header('Retry-After', String(start.retryAfterSeconds));
        else if (start.error.status === 409) void reply.header('Retry-After', '1');
        return sendError(reply, start.error.status, start.error.message);
      case 'unreadable':
        // Not run again (it could write twice): a replica that holds the secret can answer it.
        request.log.error('kept idempotent answer sealed with a PLATFORM_SECRET this replica does not hold');
        return sendError(
          reply.header('Retry-After', '1'),
          503,
          'The answer kept for this Idempotency-Key cannot be read here; retry shortly with the same key',
        );
    }
  });

  const finish = async (request: FastifyRequest, status: number, payload: unknown) => {
    const claim = claims.get(request);
    if (!claim) return;
    claims.delete(request);
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
    try {
      await service.finish(claim, status, body);
    } catch (error) {
      // The answer still goes out; the key's claim lapses and a repeat runs again (docs/idempotency.md).
      request.log.error({ err: error }, 'idempotency key not stored');
    }
  };

  fastify.addHook('onSend', async (request, reply, payload) => {
    await finish(request, reply.statusCode, payload);
    return payload;
  });
  // Nothing sent (onSend never ran): release the key rather than hold it until the claim lapses.
  fastify.addHook('onResponse', async (request, reply) => finish(request, reply.statusCode, undefined));
}
