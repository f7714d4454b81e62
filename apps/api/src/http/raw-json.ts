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

const COMMA = Buffer.from(',');

/**
 * `{"key":[a,b,...]}` from pre-rendered JSON values. Text pieces make a text body; stored bytes
 * make one Buffer.concat (turning a 200 KB string into bytes costs more than the query that read
 * it, and a 2 MB import answer is never joined, measured and encoded as text).
 */
export function jsonArrayBody(key: string, pieces: readonly (string | Uint8Array)[]): string | Buffer {
  if (pieces.every((p) => typeof p === 'string')) return `{"${key}":[${pieces.join(',')}]}`;
  const parts: Uint8Array[] = [Buffer.from(`{"${key}":[`)];
  pieces.forEach((piece, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(typeof piece === 'string' ? Buffer.from(piece) : piece);
  });
  parts.push(Buffer.from(']}'));
  return Buffer.concat(parts);
}

/** `{"key":value}` from one pre-rendered JSON value, text or bytes. */
export function jsonObjectBody(key: string, piece: string | Uint8Array): string | Buffer {
  if (typeof piece === 'string') return `{"${key}":${piece}}`;
  return Buffer.concat([Buffer.from(`{"${key}":`), piece, Buffer.from('}')]);
}
