import { DomainError } from '@platform/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Transform, type TransformCallback } from 'node:stream';

/**
 * What a route outside the Admin and operator APIs reads before its handler runs (docs/security.md,
 * issue 14 finding 1). Those two APIs authenticate in `onRequest` before any body is read; the
 * merchant pages and the OAuth token calls authenticate with what the body carries (a form token,
 * a signature over the bytes), so each such route declares a gate: the few bytes its body may have,
 * and the checks the headers alone allow, run before a byte of the body is read.
 */
export interface BodyGate {
  /** The most bytes this route's body may have; a larger one is refused unread (413). */
  readonly maxBytes: number;
  /** Refuses, by throwing, what the headers already show is not allowed (no session, a foreign Origin, no signature). */
  admit(request: FastifyRequest): Promise<void>;
  /** Answers a refusal of `admit` (or a body over `maxBytes`) in the route's own format: a page, or the OAuth envelope. */
  refuse(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply;
}

/**
 * The gates of the routes that read a body without an Admin or operator token, by method and route
 * pattern. Made by the bootstrap before Nest; each feature registers its routes' gates when its
 * service starts. A route outside the two APIs without a gate reads no body at all.
 */
export class BodyGates {
  private readonly gates = new Map<string, BodyGate>();

  set(method: string, route: string, gate: BodyGate): void {
    this.gates.set(`${method} ${route}`, gate);
  }

  get(method: string, route: string): BodyGate | undefined {
    return this.gates.get(`${method} ${route}`);
  }
}

/** Whether the request says it has a body (a length above 0, or chunked). */
export function declaresBody(request: FastifyRequest): boolean {
  return Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
}

/** A body over the route's limit: 413 (decisions §3.1), saying the limit; `statusCode` for Fastify's parser path. */
export function tooLarge(limit: number): DomainError & { statusCode: number } {
  const size = limit >= 1024 ? `${limit / 1024} KB` : `${limit} bytes`;
  return Object.assign(new DomainError('PAYLOAD_TOO_LARGE', `Request body is larger than this route's limit of ${size}`), {
    statusCode: 413,
  });
}

/**
 * The body stream, cut off at `limit` bytes: a chunked body (no Content-Length to judge it by) is
 * refused as soon as it passes the route's limit, so nothing larger is ever buffered.
 */
export function capStream(payload: NodeJS.ReadableStream, limit: number): Transform {
  let seen = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      seen += chunk.length;
      if (seen > limit) return callback(tooLarge(limit));
      callback(null, chunk);
    },
  });
  payload.on('error', (error) => capped.destroy(error));
  return payload.pipe(capped);
}
