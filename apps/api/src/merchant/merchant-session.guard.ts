import { createParamDecorator, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { SignInNeeded } from './merchant-errors.filter';
import { merchantContextOf, rememberContext, type MerchantContext } from './merchant-request';
import { MerchantSessionsService } from './merchant-sessions.service';

export type { MerchantContext } from './merchant-request';

/** A form's fields (`application/x-www-form-urlencoded`, read by merchant-forms.ts), each a string. */
export type FormFields = Readonly<Record<string, string>>;

/**
 * The one signed-in check of the merchant pages (issue 16): the host names a store (404 page
 * otherwise), the request carries a live session of that store (401 sign-in page otherwise), and a
 * form post carries the session's form token from the store's own origin (403 page otherwise). Form
 * posts were already gated on their headers before the body was read (merchant-forms.ts); this
 * check runs again on every request so no handler can be reached without it.
 */
@Injectable()
export class MerchantSessionGuard implements CanActivate {
  constructor(private readonly sessions: MerchantSessionsService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const store = await this.sessions.storeOfHost(request);
    const session = await this.sessions.current(request, store);
    const reading = request.method === 'GET' || request.method === 'HEAD';
    if (!session) throw new SignInNeeded(store, reading ? request.url : '/admin', this.sessions.hadSession(request));
    rememberContext(request, { store, session });
    if (!reading) this.sessions.checkForm(request, session, formOf(request).form_token);
    return true;
  }
}

function formOf(request: FastifyRequest): FormFields {
  const body = request.body;
  return typeof body === 'object' && body !== null ? (body as FormFields) : {};
}

/** The signed-in merchant, as MerchantSessionGuard found it. */
export const Merchant = createParamDecorator((_data: unknown, context: ExecutionContext): MerchantContext => {
  const found = merchantContextOf(context.switchToHttp().getRequest<FastifyRequest>());
  // Only reachable when a handler takes @Merchant() without the guard: a bug, never a page.
  if (!found) throw new Error('@Merchant() used on a route without MerchantSessionGuard');
  return found;
});

/** The posted form's fields (empty when the post had no body). */
export const Form = createParamDecorator((_data: unknown, context: ExecutionContext): FormFields =>
  formOf(context.switchToHttp().getRequest()),
);
