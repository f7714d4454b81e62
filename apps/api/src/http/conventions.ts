import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { resolveVersion, type Clock } from '@platform/domain';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/** decisions §3.1 and §3.4: request bodies and responses are capped at 8 MB. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
export const ADMIN_PREFIX = '/admin/openapi/';

function badRequest(message: string): Error & { statusCode: number; code: string } {
  return Object.assign(new Error(message), { statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' });
}

/**
 * decisions §3.1: a body must be JSON in UTF-8; an empty body is accepted whatever its type.
 * One parser for every content type, so a wrong type is our 400, not Fastify's 415.
 */
function installBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, (request, body, done) => {
    const text = body as string;
    if (text.length === 0) return done(null, undefined);
    const contentType = request.headers['content-type'];
    if (!isJsonUtf8(contentType)) {
      return done(badRequest(`Content-Type must be application/json; charset=utf-8 (got '${contentType ?? ''}')`));
    }
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(badRequest(`Malformed JSON body: ${(error as Error).message}`));
    }
  });
}

export function isJsonUtf8(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const [type = '', ...params] = contentType.split(';');
  if (type.trim().toLowerCase() !== 'application/json') return false;
  for (const param of params) {
    const [name = '', value = ''] = param.split('=');
    if (name.trim().toLowerCase() === 'charset') {
      const charset = value.trim().replace(/^"|"$/g, '').toLowerCase();
      if (charset !== 'utf-8' && charset !== 'utf8') return false;
    }
  }
  return true;
}

function sendError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).header('content-type', JSON_CONTENT_TYPE).send(JSON.stringify({ errors: message }));
}

/**
 * Cross-cutting rules that hold for every route, known or not (decisions §1-§3): the trace id,
 * JSON content type, the Admin API version, and the response size cap.
 */
export function installHttpConventions(fastify: FastifyInstance, clock: Clock): void {
  installBodyParser(fastify);

  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    reply.header('traceId', request.id);
    reply.header('content-type', JSON_CONTENT_TYPE);
    const url = request.url;
    if (url.startsWith(ADMIN_PREFIX)) {
      const end = url.indexOf('/', ADMIN_PREFIX.length);
      const requested = url.slice(ADMIN_PREFIX.length, end === -1 ? undefined : end).split('?')[0] ?? '';
      const resolution = resolveVersion(requested, clock.now());
      if (!resolution.ok) {
        sendError(reply, 404, resolution.message);
        return;
      }
      request.apiVersion = resolution.served;
      reply.header('X-Platform-API-Version', resolution.served);
    }
    done();
  });

  fastify.addHook('onSend', (request, reply, payload, done) => {
    const size = typeof payload === 'string' ? Buffer.byteLength(payload) : Buffer.isBuffer(payload) ? payload.length : 0;
    if (size > MAX_RESPONSE_BYTES) {
      request.log.warn({ size }, 'response over 8 MB refused');
      reply.code(400);
      return done(null, JSON.stringify({ errors: 'The response would exceed 8 MB; request fewer records (limit) or fewer fields (fields)' }));
    }
    done(null, payload);
  });

  fastify.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      { method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request completed',
    );
    done();
  });
}
