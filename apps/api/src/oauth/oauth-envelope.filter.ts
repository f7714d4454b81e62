import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { isDomainError } from '@platform/domain';
import { RequestValidationError } from '@ts-rest/nest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { JSON_CONTENT_TYPE } from '../http/wire';
import { boundedMessage, formatZodError, toErrorResponse } from '../http/errors.filter';

const CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  402: 'PAYMENT_REQUIRED',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'VALIDATION_FAILED',
  423: 'STORE_CLOSED',
  429: 'RATE_LIMITED',
};

/**
 * decisions §5.2: a refusal in the platform family's envelope, with `errors` (decisions §4) beside
 * it, so clients of either shape read the message.
 */
function envelope(status: number, i18nCode: string, message: string) {
  return { code: status, i18nCode, message, errors: message, data: null };
}

/** A refusal in the envelope, from a status and a message alone (errors raised before the handler). */
export function envelopeOf(status: number, message: string) {
  return envelope(status, CODES[status] ?? (status >= 500 ? 'INTERNAL' : 'BAD_REQUEST'), message);
}

/** The refusal envelope of the token calls (decisions §5.2): `{"code","i18nCode","message","errors","data":null}`. */
export function oauthErrorBody(exception: unknown): { status: number; body: string } {
  let { status, message } = toErrorResponse(exception);
  let i18nCode = isDomainError(exception) ? exception.code : (CODES[status] ?? (status >= 500 ? 'INTERNAL' : 'BAD_REQUEST'));
  if (exception instanceof RequestValidationError && exception.headers) {
    // A missing signing header is a refused signature, not a malformed request.
    status = 401;
    i18nCode = 'INVALID_SIGNATURE';
    message = `The appkey, timestamp and sign headers are required (${formatZodError(exception.headers, 'headers')})`;
  }
  return { status, body: JSON.stringify(envelope(status, i18nCode, boundedMessage(message))) };
}

/** Every refusal of a token call, whatever raised it, in the envelope; the traceId header is already set. */
@Catch()
export class OAuthEnvelopeFilter implements ExceptionFilter {
  private readonly logger = new Logger('oauth');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const { status, body } = oauthErrorBody(exception);
    if (status >= 500) this.logger.error({ traceId: request.id, err: exception }, `unhandled error on ${request.method} ${request.url}`);
    if (reply.sent) return;
    void reply.code(status).header('content-type', JSON_CONTENT_TYPE).send(body);
  }
}
