import { Injectable } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ADMIN_PREFIX } from '../http/wire';
import { errorPage } from './merchant-errors.filter';
import { pageHeaders } from './merchant-page';
import { rememberContext } from './merchant-request';
import { MerchantSessionsService } from './merchant-sessions.service';

/** Renders the page of an unknown merchant path, or undefined when the request is no store's (the JSON answer stays). */
type NotFoundRenderer = (request: FastifyRequest) => Promise<string | undefined>;

/**
 * Where the not-found hook (installed by the bootstrap before Nest, like the other Fastify hooks)
 * finds its renderer: the bootstrap puts MerchantNotFoundPages' here once Nest has started.
 */
export class MerchantNotFound {
  private render: NotFoundRenderer | undefined;

  provide(render: NotFoundRenderer): void {
    this.render = render;
  }

  get current(): NotFoundRenderer | undefined {
    return this.render;
  }
}

/** A browser asking for a page (not an API client): GET or HEAD, HTML accepted. */
function wantsPage(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const path = request.url.split('?')[0] ?? '';
  if (!path.startsWith('/admin/') || path.startsWith(ADMIN_PREFIX)) return false;
  return (request.headers.accept ?? '').includes('text/html');
}

/**
 * Issue 47: an unknown `/admin/...` path on a store's host, asked for by a browser, is a 404 page of
 * the merchant admin (with the navigation and Sign out when signed in) instead of the JSON every
 * other client still gets. The JSON answer is made as ever (http/conventions answers unknown
 * routes before any handler); this hook only swaps its body for the page, on its way out.
 */
export function installMerchantNotFound(fastify: FastifyInstance, notFound: MerchantNotFound): void {
  fastify.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (reply.statusCode !== 404 || !request.is404 || !wantsPage(request)) return payload;
    const page = await notFound.current?.(request);
    if (page === undefined) return payload;
    void reply.removeHeader('content-length').headers(pageHeaders({ https: request.protocol === 'https' }));
    return page;
  });
}

/** The merchant module's side: the store and session of the request, and the page (the bootstrap hands `render` to MerchantNotFound). */
@Injectable()
export class MerchantNotFoundPages {
  constructor(private readonly sessions: MerchantSessionsService) {}

  async render(request: FastifyRequest): Promise<string | undefined> {
    try {
      const store = await this.sessions.storeOfHost(request);
      const session = await this.sessions.current(request, store);
      if (session) rememberContext(request, { store, session });
      return errorPage(request, 404, 'There is no page at this address.').text;
    } catch {
      // Not a store's host, or no such store: the JSON answer stays.
      return undefined;
    }
  }
}
