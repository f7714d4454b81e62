import { Controller, Get, Param, Post, Query, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { DomainError } from '@platform/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { loadAssets } from './merchant-assets';
import { MerchantAppsService } from './merchant-apps.service';
import { MerchantCatalogService } from './merchant-catalog.service';
import { MerchantDefinitionsService } from './merchant-definitions.service';
import { MerchantPageFilter } from './merchant-errors.filter';
import { sendPage, transportHeaders } from './merchant-page';
import { Merchant, MerchantSessionGuard, type MerchantContext } from './merchant-session.guard';
import { MerchantSessionsService } from './merchant-sessions.service';
import { homePage } from './pages/home.page';

/** The merchant's pages on the store's host: sign-in, home, sign-out, and the pages' assets. */
@Controller()
@UseFilters(MerchantPageFilter)
export class MerchantController {
  private readonly assets = loadAssets();

  constructor(
    private readonly sessions: MerchantSessionsService,
    private readonly apps: MerchantAppsService,
    private readonly catalog: MerchantCatalogService,
    private readonly definitions: MerchantDefinitionsService,
  ) {}

  @Get('/admin/assets/:name')
  asset(@Param('name') name: string, @Res() reply: FastifyReply) {
    const asset = this.assets.get(name);
    if (!asset) throw new DomainError('NOT_FOUND');
    void reply
      .code(200)
      .headers({ 'content-type': asset.contentType, 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' })
      .send(asset.body);
  }

  /** decisions §10: the one-time link. It opens a session and leads to the home page. */
  @Get('/admin/sign-in')
  async signIn(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query('token') token: unknown) {
    const store = await this.sessions.storeOfHost(request);
    await this.sessions.signIn(request, reply, store, token);
    void reply
      .code(303)
      .headers({ location: '/admin', 'cache-control': 'no-store', 'referrer-policy': 'same-origin', ...transportHeaders(request) })
      .send();
  }

  /** What needs the merchant's attention, each a count linking to its list (issue 18, 0), and the installed apps. */
  @Get('/admin')
  @UseGuards(MerchantSessionGuard)
  async home(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply) {
    const [invalidValues, productsRequiringAction, apps, installed] = await Promise.all([
      this.definitions.invalidCount(ctx),
      this.catalog.productsRequiringAction(ctx),
      this.apps.attention(ctx),
      this.apps.installedApps(ctx),
    ]);
    return sendPage(reply, 200, homePage(ctx, { invalidValues, productsRequiringAction, ...apps }, installed, this.apps.now()));
  }

  /** Signed out already: home (the gate answered a post without a session before its body was read). */
  @Post('/admin/sign-out')
  async signOut(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const store = await this.sessions.storeOfHost(request);
    const session = await this.sessions.current(request, store);
    if (session) {
      this.sessions.checkForm(request, session, (request.body as Record<string, string> | undefined)?.form_token);
      await this.sessions.signOut(request, reply, session);
    }
    void reply.code(303).header('location', '/admin').send();
  }
}
