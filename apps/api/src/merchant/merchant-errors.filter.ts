import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { DomainError } from '@platform/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { boundedMessage, toErrorResponse } from '../http/errors.filter';
import { noticePage, sendPage, signInNeededPage } from './merchant-page';

/** A page or form reached without a session of the host's store: answered with the sign-in page (401). */
export class SignInNeeded extends DomainError {
  constructor(
    readonly store: { name: string; handle: string },
    readonly returnPath: string,
  ) {
    super('UNAUTHENTICATED', 'Sign in to continue');
  }
}

const TITLES: Record<number, string> = {
  400: 'This request cannot be completed',
  401: 'Sign-in needed',
  402: 'This store is restricted',
  403: 'Not allowed',
  404: 'Not found',
  423: 'This store is closed',
};

const logger = new Logger('merchant-pages');

/**
 * Merchant pages answer errors as pages, with the same status and message the API would give
 * (`ERROR_STATUS`): a person reads them in a browser. Pages' handlers (MerchantPageFilter) and the
 * form gates that refuse a post before its body is read (MerchantSessionsService) both use it.
 */
export function sendErrorPage(request: FastifyRequest, reply: FastifyReply, exception: unknown): FastifyReply {
  if (exception instanceof SignInNeeded) return sendPage(reply, 401, signInNeededPage(exception.store, exception.returnPath));
  const { status, message } = toErrorResponse(exception);
  if (status >= 500) logger.error({ traceId: request.id, err: exception }, `unhandled error on ${request.method} ${request.url}`);
  if (reply.sent) return reply;
  const text = status >= 500 ? `Something went wrong on our side. Quote this id if you report it: ${request.id}` : boundedMessage(message);
  return sendPage(reply, status, noticePage(TITLES[status] ?? 'Something went wrong', [text]));
}

/** Used with `@UseFilters` on page controllers. */
@Catch()
export class MerchantPageFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    void sendErrorPage(host.switchToHttp().getRequest<FastifyRequest>(), host.switchToHttp().getResponse<FastifyReply>(), exception);
  }
}
