import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { boundedMessage, toErrorResponse } from '../http/errors.filter';
import { noticePage, sendPage } from './merchant-page';

const TITLES: Record<number, string> = {
  400: 'This request cannot be completed',
  401: 'Sign-in needed',
  402: 'This store is restricted',
  403: 'Not allowed',
  404: 'Not found',
  423: 'This store is closed',
};

/**
 * Merchant pages answer errors as pages, with the same status and message the API would give
 * (`ERROR_STATUS`): a person reads them in a browser. Used with `@UseFilters` on page controllers.
 */
@Catch()
export class MerchantPageFilter implements ExceptionFilter {
  private readonly logger = new Logger('merchant-pages');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const { status, message } = toErrorResponse(exception);
    if (status >= 500) this.logger.error({ traceId: request.id, err: exception }, `unhandled error on ${request.method} ${request.url}`);
    if (reply.sent) return;
    const text = status >= 500 ? `Something went wrong on our side. Quote this id if you report it: ${request.id}` : boundedMessage(message);
    void sendPage(reply, status, noticePage(TITLES[status] ?? 'Something went wrong', [text]));
  }
}
