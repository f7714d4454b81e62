import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { adminContract, type ListProductsQuery } from '@platform/contract';
import { RequestValidationError } from '@ts-rest/nest';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendErrorResponse } from '../http/errors.filter';
import { requestPageUrl } from '../http/raw-json';
import { ProductsService } from './products.service';

const QUERY_KEYS = ['limit', 'since_id', 'page_info', 'fields'] as const;

/**
 * The contract's query check, precompiled for this route's shape (optional strings): the usual
 * request passes without zod; anything else (a parameter given twice is an array) goes through
 * the contract's own schema, so the 400 names the problem exactly as on every other route.
 */
function readQuery(raw: unknown): ListProductsQuery {
  const query = (raw ?? {}) as Record<string, unknown>;
  const out: ListProductsQuery = {};
  for (const key of QUERY_KEYS) {
    const value = query[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') {
      const parsed = adminContract.listProducts.query.safeParse(query);
      if (!parsed.success) throw new RequestValidationError(null, null, parsed.error, null);
    }
    out[key] = value as string;
  }
  return out;
}

/**
 * `GET .../products/products.json`, the hottest read of the Admin API, served by Fastify directly
 * instead of through Nest's router, interceptors and rxjs (docs/performance.md): the same
 * contract route (path, query schema, response type), the same checks before it (trace id,
 * version, token, rate limit, scope: http/conventions), the same service and the same errors.
 * Everything else stays a Nest handler.
 */
@Injectable()
export class ProductsListingRoute implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly products: ProductsService,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const route = adminContract.listProducts;
    fastify.route({ method: route.method, url: route.path, handler: (request, reply) => this.handle(request, reply) });
  }

  private async handle(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    try {
      // Fails closed like AccessGuard: never served without the onRequest access check.
      if (request.auth === undefined)
        throw new Error(`Admin route ${request.method} ${request.routeOptions.url} reached without its access check`);
      const page = await this.products.list(request.auth.store, readQuery(request.query), requestPageUrl(request));
      if (page.link) void reply.header('link', page.link);
      return reply.code(200).send(page.json);
    } catch (error) {
      return sendErrorResponse(request, reply, error);
    }
  }
}
