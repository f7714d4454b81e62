import { Controller, Req } from '@nestjs/common';
import { operatorContract } from '@platform/contract';
import { DomainError, OUT_OF_STORED_RANGE, parseStoredInstant } from '@platform/domain';
import { TsRestHandler, tsRestHandler } from '@ts-rest/nest';
import type { FastifyRequest } from 'fastify';
import { AppsService } from '../apps/apps.service';
import { OAuthGrantsService } from '../oauth/oauth-grants.service';
import { ClockService } from '../core/clock.service';
import { MerchantSessionsService } from '../merchant/merchant-sessions.service';
import { ProductsWriteService } from '../products/products-write.service';
import { ListingDocumentsWorker } from '../products/listing-documents.worker';
import type { ProductInput } from '../products/product-document';
import { pathId } from '../http/ids';
import { jsonArrayBody, jsonObjectBody, rawJson } from '../http/raw-json';
import { StoresService } from '../stores/stores.service';

/** decisions §10: the platform team's automation surface, standing in for the merchant admin. */
@Controller()
export class OperatorController {
  constructor(
    private readonly stores: StoresService,
    private readonly apps: AppsService,
    private readonly grants: OAuthGrantsService,
    private readonly products: ProductsWriteService,
    private readonly clock: ClockService,
    private readonly sessions: MerchantSessionsService,
    private readonly listingDocuments: ListingDocumentsWorker,
  ) {}

  @TsRestHandler(operatorContract)
  handler(@Req() request: FastifyRequest) {
    return tsRestHandler(operatorContract, {
      createStore: async ({ body }) => {
        const store = await this.stores.create(body.store);
        return { status: 201 as const, body: { store: this.stores.toOperator(store) } };
      },
      getStore: async ({ params }) => {
        const store = await this.stores.get(params.handle);
        return { status: 200 as const, body: { store: this.stores.toOperator(store) } };
      },
      updateStore: async ({ params, body }) => {
        const store = await this.stores.update(params.handle, body.store);
        // The stored listing documents carry times in the store's zone: re-rendered in the background.
        if (body.store.iana_timezone !== undefined) void this.listingDocuments.refresh();
        return { status: 200 as const, body: { store: this.stores.toOperator(store) } };
      },
      createApp: async ({ body }) => ({ status: 201 as const, body: await this.apps.create(body.app) }),
      installApp: async ({ params, body }) => ({
        status: 201 as const,
        body: await this.grants.install(params.handle, pathId(params.appId), body.scopes),
      }),
      createAdminSession: async ({ params }) => ({
        status: 201 as const,
        body: await this.sessions.createSignInLink(request, params.handle),
      }),
      refreshAppToken: async ({ params }) => ({
        status: 200 as const,
        body: await this.apps.refreshPrivateToken(params.handle, pathId(params.appId)),
      }),
      deleteApp: async ({ params }) => {
        await this.apps.remove(params.handle, pathId(params.appId));
        return { status: 200 as const, body: {} };
      },
      createProducts: async ({ params, body }) => {
        // The contract's union would take `product` and drop `products` silently: both is a mistake.
        const sent = request.body as Record<string, unknown>;
        if ('product' in sent && 'products' in sent) {
          throw new DomainError('VALIDATION_FAILED', 'body: send product (one) or products (up to 1,000), not both');
        }
        // The answer is the stored bytes of each listing document, joined: no text is built or encoded.
        if ('products' in body) {
          const products = await this.products.create(params.handle, body.products as ProductInput[]);
          return { status: 201 as const, body: rawJson(jsonArrayBody('products', products)) };
        }
        const [product] = await this.products.create(params.handle, [body.product as ProductInput]);
        return { status: 201 as const, body: rawJson(jsonObjectBody('product', product!)) };
      },
      updateProduct: async ({ params, body }) => {
        const product = await this.products.update(params.handle, pathId(params.id), body.product as Partial<ProductInput>);
        return { status: 200 as const, body: rawJson(`{"product":${product}}`) };
      },
      getClock: async () => ({ status: 200 as const, body: { now: this.clock.now().toISOString() } }),
      setClock: async ({ body }) => {
        // Only reached with PLATFORM_CLOCK=manual: otherwise http/conventions answers 404 first.
        let now: Date;
        if (body.now !== undefined) {
          const parsed = parseStoredInstant(body.now);
          if (!parsed.ok) {
            const message = parsed.message === OUT_OF_STORED_RANGE ? parsed.message : 'must be an ISO 8601 time with an offset or Z';
            throw new DomainError('VALIDATION_FAILED', `now: ${message}`);
          }
          now = await this.clock.set({ now: parsed.value });
        } else {
          now = await this.clock.set({ advanceSeconds: body.advance_seconds! });
        }
        return { status: 200 as const, body: { now: now.toISOString() } };
      },
    });
  }
}
