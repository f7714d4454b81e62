import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { JSON_CONTENT_TYPE } from './wire';

/**
 * decisions §1.1, §3.2, §4: Fastify's own errors raised before routing (a path whose escapes do not
 * decode, such as `%zz`) name no resource: 404 with the trace id, like any unknown path.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const notFound = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_INVALID_URL';
  request.log.info({ url: request.url, code: error.code }, 'request refused before routing');
  void reply
    .code(notFound ? 404 : 400)
    .header('traceId', request.id)
    .header('content-type', JSON_CONTENT_TYPE)
    .send(JSON.stringify({ errors: notFound ? 'Not Found' : 'Bad Request' }));
}

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'The request line and headers are larger than the server accepts'],
  HPE_INVALID_METHOD: [400, 'Bad Request', 'Unknown HTTP method'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request was not received in time'],
};

/**
 * Requests Node's HTTP parser refuses (an unknown method, headers over its limit, broken framing)
 * never reach Fastify's hooks; they still get a trace id and an `{"errors": "..."}` body.
 */
export function answerClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody to answer; a response already under way on a kept-alive socket
  // must not be interleaved with another (Node's own handler checks the same).
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight) {
    socket.destroy();
    return;
  }
  const [status, reason, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'Bad Request', 'Malformed HTTP request'];
  answerOnSocket(this, socket, status, reason, message, { code: error.code }, 'request refused by the HTTP parser');
}

/**
 * `CONNECT` (a proxy's tunnel request) never reaches Fastify: Node hands the socket to a `connect`
 * listener, or closes it without a word when there is none. This is not a proxy: 400 like any
 * request it cannot serve, with a trace id and an `{"errors"}` body.
 */
export function answerConnect(fastify: FastifyInstance, socket: Socket): void {
  if (!socket.writable) return void socket.destroy();
  answerOnSocket(
    fastify,
    socket,
    400,
    'Bad Request',
    'CONNECT is not supported: this is not a proxy',
    { method: 'CONNECT' },
    'request refused: CONNECT',
  );
}

function answerOnSocket(
  fastify: FastifyInstance,
  socket: Socket,
  status: number,
  reason: string,
  message: string,
  logged: Record<string, unknown>,
  what: string,
): void {
  const traceId = randomUUID();
  // decisions §3.2: the trace id is in the log line of the request, also of one never parsed.
  fastify.log.info({ traceId, ...logged, status }, what);
  const body = JSON.stringify({ errors: message });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ntraceId: ${traceId}\r\nContent-Type: ${JSON_CONTENT_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
