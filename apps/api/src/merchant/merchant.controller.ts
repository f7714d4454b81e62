import { Controller, Get, HttpCode, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { DomainError, formatInZone, minimalScopeString } from '@platform/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MerchantPageFilter } from './merchant-errors.filter';
import { loadAssets } from './merchant-assets';
import { html, layout, nav, sendPage, signInNeededPage } from './merchant-page';
import { MerchantSessionsRepository } from './merchant-sessions.repository';
import { MerchantSessionsService } from './merchant-sessions.service';

/** The merchant's pages on the store's host: sign-in, home, sign-out, and the pages' assets. */
@Controller()
@UseFilters(MerchantPageFilter)
export class MerchantController {
  private readonly assets = loadAssets();

  constructor(
    private readonly sessions: MerchantSessionsService,
    private readonly repository: MerchantSessionsRepository,
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
    void reply.code(303).header('location', '/admin').header('cache-control', 'no-store').header('referrer-policy', 'same-origin').send();
  }

  @Get('/admin')
  async home(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const store = await this.sessions.storeOfHost(request);
    const session = await this.sessions.current(request, store);
    if (!session) return sendPage(reply, 401, signInNeededPage(store, '/admin'));
    const apps = await this.repository.installedApps(store.id);
    const rows = apps.map(
      (app) => html`<tr><td><a href="/admin/apps/${app.id.toString()}/deliveries">${app.name}</a></td><td>${app.kind}</td><td>${minimalScopeString(app.scopes.split(','))}</td><td>${formatInZone(app.createdAt, store.ianaTimezone)}</td></tr>`,
    );
    return sendPage(
      reply,
      200,
      layout({
        title: 'Apps',
        storeName: store.name,
        signOut: { formToken: session.formToken },
        body: html`${nav()}<section class="card"><h1>Installed apps</h1>${
          apps.length === 0
            ? html`<p class="muted">No app is installed on this store yet.</p>`
            : html`<table><thead><tr><th>App</th><th>Kind</th><th>Scopes</th><th>Since</th></tr></thead><tbody>${rows}</tbody></table>`
        }</section>`,
      }),
    );
  }

  @Post('/admin/sign-out')
  @HttpCode(303)
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
