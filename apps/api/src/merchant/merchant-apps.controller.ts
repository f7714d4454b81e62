import { Controller, Get, Param, Post, Query, Res, UseFilters, UseGuards } from '@nestjs/common';
import { isScope, IssuesError, SCOPES } from '@platform/domain';
import type { FastifyReply } from 'fastify';
import { pathId, toId } from '../http/ids';
import { MerchantAppsService } from './merchant-apps.service';
import { MerchantPageFilter } from './merchant-errors.filter';
import { seeOther, sendPage } from './merchant-page';
import { Form, Merchant, MerchantSessionGuard, type FormFields, type MerchantContext } from './merchant-session.guard';
import { appsPage, newPrivateAppPage, tokenPage } from './pages/apps.page';
import { confirmDeletePage, confirmRefreshPage, confirmUninstallPage } from './pages/app-actions.page';
import { deliveriesPage, notRedeliveredPage } from './pages/deliveries.page';
import { issuesByField } from './pages/field-issues';

/** Apps (issue 18, 4): installed apps and uninstall, private apps (create, refresh, delete), and an app's deliveries (issue 10). */
@Controller()
@UseFilters(MerchantPageFilter)
@UseGuards(MerchantSessionGuard)
export class MerchantAppsController {
  constructor(private readonly apps: MerchantAppsService) {}

  @Get('/admin/apps')
  async list(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Query('done') done: unknown) {
    const { apps, troubled } = await this.apps.overview(ctx);
    return sendPage(reply, 200, appsPage(ctx, apps, troubled, this.apps.now(), typeof done === 'string' ? done : undefined));
  }

  @Get('/admin/apps/:appId/uninstall')
  async confirmUninstall(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Param('appId') appId: string) {
    const app = await this.apps.installed(ctx, pathId(appId), 'installed');
    return sendPage(reply, 200, confirmUninstallPage(ctx, app));
  }

  @Post('/admin/apps/:appId/uninstall')
  async uninstall(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Param('appId') appId: string) {
    await this.apps.remove(ctx, pathId(appId), 'installed');
    seeOther(reply, '/admin/apps?done=uninstalled');
  }

  @Get('/admin/private_apps/new')
  newPrivate(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply) {
    return sendPage(reply, 200, newPrivateAppPage(ctx, { name: '', scopes: [] }, new Map()));
  }

  /** The token is in this answer only (a page, not a redirect: it is never stored to be shown again). */
  @Post('/admin/private_apps')
  async createPrivate(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Form() form: FormFields) {
    const name = form.name ?? '';
    const scopes = SCOPES.filter((scope) => form[`scope.${scope}`] === 'on');
    const unknown = Object.keys(form).filter((f) => f.startsWith('scope.') && !isScope(f.slice(6)));
    try {
      // A scope the form does not offer is passed on, so the API's own message names it.
      const shown = await this.apps.createPrivate(ctx, name, [...scopes, ...unknown.map((f) => f.slice(6))]);
      return sendPage(reply, 201, tokenPage(ctx, shown, `${shown.appName} is created`), { scripts: true });
    } catch (error) {
      if (!(error instanceof IssuesError)) throw error;
      return sendPage(
        reply,
        422,
        newPrivateAppPage(
          ctx,
          { name, scopes },
          issuesByField(error.issues, ({ field }) => (field === 'name' || field === 'scopes' ? field : '')),
        ),
      );
    }
  }

  @Get('/admin/private_apps/:appId/refresh')
  async confirmRefresh(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Param('appId') appId: string) {
    const app = await this.apps.installed(ctx, pathId(appId), 'private');
    return sendPage(reply, 200, confirmRefreshPage(ctx, app));
  }

  @Post('/admin/private_apps/:appId/refresh')
  async refresh(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Param('appId') appId: string) {
    const shown = await this.apps.refreshPrivate(ctx, pathId(appId));
    return sendPage(reply, 200, tokenPage(ctx, shown, `New token for ${shown.appName}`), { scripts: true });
  }

  @Get('/admin/private_apps/:appId/delete')
  async confirmDelete(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Param('appId') appId: string) {
    const app = await this.apps.installed(ctx, pathId(appId), 'private');
    return sendPage(reply, 200, confirmDeletePage(ctx, app));
  }

  @Post('/admin/private_apps/:appId/delete')
  async deletePrivate(@Merchant() ctx: MerchantContext, @Res() reply: FastifyReply, @Param('appId') appId: string) {
    await this.apps.remove(ctx, pathId(appId), 'private');
    seeOther(reply, '/admin/apps?done=deleted');
  }

  @Get('/admin/apps/:appId/deliveries')
  async deliveries(
    @Merchant() ctx: MerchantContext,
    @Res() reply: FastifyReply,
    @Param('appId') appId: string,
    @Query('redelivered') redelivered: unknown,
  ) {
    const view = await this.apps.deliveriesOf(ctx, pathId(appId), typeof redelivered === 'string' ? toId(redelivered) : undefined);
    return sendPage(reply, 200, deliveriesPage(ctx, view));
  }

  /** The Redeliver button: a failed delivery back to pending (decisions §10), then back to the page. */
  @Post('/admin/apps/:appId/deliveries/:deliveryId/redeliver')
  async redeliver(
    @Merchant() ctx: MerchantContext,
    @Res() reply: FastifyReply,
    @Param('appId') appId: string,
    @Param('deliveryId') deliveryId: string,
  ) {
    const id = pathId(deliveryId);
    const { app, refused } = await this.apps.redeliver(ctx, pathId(appId), id);
    if (refused !== undefined) return sendPage(reply, 422, notRedeliveredPage(ctx, app, id, refused));
    seeOther(reply, `/admin/apps/${app.id.toString()}/deliveries?redelivered=${id.toString()}`);
  }
}
