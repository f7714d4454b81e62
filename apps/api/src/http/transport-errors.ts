import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { JSON_CONTENT_TYPE } from './conventions';

/**
 * decisions §1.1, §3.2, §4: Fastify's own errors raised before routing (a path whose escapes do not
 * decode, such as `%zz`) name no resource: 404 with the trace id, like any unknown path.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const notFound = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_INVALID_URL';
  void reply
    .code(notFound ? 404 : 400)
    .header('traceId', request.id)
    .header('content-type', JSON_CONTENT_TYPE)
    .send(JSON.stringify({ errors: notFound ? 'Not Found' : 'Bad Request' }));
}

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'The request line and headers are larger than the server accepts'],
  HPE_INVALID_METHOD: [400, 'Bad Request', 'Unknown HTTP method'],
};

/**
 * Requests Node's HTTP parser refuses (an unknown method, headers over its limit, broken framing)
 * never reach Fastify's hooks; they still get a trace id and an `{"errors": "..."}` body.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'Bad Request', 'Malformed HTTP request'];
  const body = JSON.stringify({ errors: message });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ntraceId: ${randomUUID()}\r\nContent-Type: ${JSON_CONTENT_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
