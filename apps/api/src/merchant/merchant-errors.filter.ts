import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { DomainError } from '@platform/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { boundedMessage, toErrorResponse } from '../http/errors.filter';
import { adminPage, html, layout, sendPage, signInHelp, signInNeededPage, type Html } from './merchant-page';
import { hostStoreOf, merchantContextOf } from './merchant-request';

/** A page or form reached without a session of the host's store: answered with the sign-in page (401). */
export class SignInNeeded extends DomainError {
  constructor(
    readonly store: { name: string; handle: string },
    readonly returnPath: string,
    /** The request carried a session that is no longer live (expired, or signed out elsewhere). */
    readonly ended = false,
  ) {
    super('UNAUTHENTICATED', 'Sign in to continue');
  }
}

/**
 * A merchant page asked for on a host that names no store (the bare host, an IP address): 404 with
 * the message it always had, and a page that links to the store hosts in the request's own port.
 */
export class NotOnStoreHost extends DomainError {
  constructor(
    baseDomain: string,
    /** A store's origin with `{handle}` for its handle (`http://{handle}.localhost:3000`). */
    readonly storeOrigin: string,
    /** The demo store's origin, when the start seeds it. */
    readonly demoOrigin: string | undefined,
  ) {
    super('NOT_FOUND', `Merchant pages are on the store's own host, {handle}.${baseDomain}`);
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

function notOnStoreHostPage(error: NotOnStoreHost): Html {
  return layout({
    title: 'Open your store’s admin',
    body: html`<section class="card"><h1>Open your store’s admin</h1>
<p>The merchant admin of each store is on the store’s own address: <code>${error.storeOrigin}/admin</code>.</p>
${
  error.demoOrigin
    ? html`<div class="actions"><a class="button primary" href="${error.demoOrigin}/admin">Open the demo store’s admin</a></div>`
    : ''
}
<p class="muted">${error.message}.</p></section>`,
  });
}

/**
 * An error as a page of the store it happened on: with the navigation and Sign out when signed in
 * (no dead end), else the store's name; the API's status and message either way.
 */
export function errorPage(request: FastifyRequest, status: number, text: string): Html {
  const title = TITLES[status] ?? 'Something went wrong';
  const ctx = merchantContextOf(request);
  const body = html`<section class="card"><h1>${title}</h1><p>${text}</p>${
    status === 401 && !ctx && hostStoreOf(request) ? signInHelp(hostStoreOf(request)!.handle) : ''
  }${status === 404 ? html`<div class="actions"><a class="button" href="/admin">Go to the home page</a></div>` : ''}</section>`;
  return ctx ? adminPage(ctx, { title, section: true, body }) : layout({ title, storeName: hostStoreOf(request)?.name, body });
}

/**
 * Merchant pages answer errors as pages, with the same status and message the API would give
 * (`ERROR_STATUS`): a person reads them in a browser. Pages' handlers (MerchantPageFilter) and the
 * form gates that refuse a post before its body is read (MerchantSessionsService) both use it.
 */
export function sendErrorPage(request: FastifyRequest, reply: FastifyReply, exception: unknown): FastifyReply {
  if (exception instanceof SignInNeeded) {
    return sendPage(reply, 401, signInNeededPage(exception.store, exception.returnPath, exception.ended));
  }
  if (exception instanceof NotOnStoreHost) return sendPage(reply, 404, notOnStoreHostPage(exception));
  const { status, message } = toErrorResponse(exception);
  if (status >= 500) logger.error({ traceId: request.id, err: exception }, `unhandled error on ${request.method} ${request.url}`);
  if (reply.sent) return reply;
  const text = status >= 500 ? `Something went wrong on our side. Quote this id if you report it: ${request.id}` : boundedMessage(message);
  return sendPage(reply, status, errorPage(request, status, text));
}

/** Used with `@UseFilters` on page controllers. */
@Catch()
export class MerchantPageFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    void sendErrorPage(host.switchToHttp().getRequest<FastifyRequest>(), host.switchToHttp().getResponse<FastifyReply>(), exception);
  }
}
