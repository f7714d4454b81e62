import type { FastifyRequest } from 'fastify';

/**
 * A body the read path has already serialised. Fastify sends a string or a Buffer as is, with the
 * JSON content type every response gets (http/conventions). The cast is the one place the
 * handler's typed body meets pre-rendered JSON (typed `never` so it fits the route's declared body).
 */
export function rawJson(text: string | Buffer): never {
  return text as never;
}

/** `scheme://host/path` of this request, for links the service builds (decisions §1.4). */
export function requestPageUrl(request: FastifyRequest): string {
  const path = request.url.split('?')[0] ?? '';
  return `${request.protocol}://${request.host}${path}`;
}
