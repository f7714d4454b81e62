import { Controller, Get, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { DomainError, formatInZone, minimalScopeString } from '@platform/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pathId, toId } from '../http/ids';
import type { StoreRecord } from '../stores/stores.service';
import { DeliveriesRepository } from '../webhooks/deliveries.repository';
import { deliveryJson, DeliveriesService } from '../webhooks/deliveries.service';
import { WebhooksRepository } from '../webhooks/webhooks.repository';
import { MerchantPageFilter } from './merchant-errors.filter';
import { html, layout, nav, sendPage, signInNeededPage, when } from './merchant-page';
import { MerchantSessionsRepository, type InstalledApp } from './merchant-sessions.repository';
import { MerchantSessionsService, type MerchantSession } from './merchant-sessions.service';

/** The newest deliveries the page shows (docs/webhooks.md); older ones are in the operator's view. */
export const RECENT_DELIVERIES = 50;
/** Subscriptions the page shows; an app has a handful (one per topic and address). */
const SUBSCRIPTIONS_SHOWN = 200;

/** Why a subscription was disabled (decisions §11.5), in words. */
const DISABLED_WORDS: Record<string, string> = {
  gone: 'the address answered 410 Gone',
  failures: '8 deliveries in a row failed',
  api: 'the app disabled it',
};

type Delivery = ReturnType<typeof deliveryJson>;

function attemptLine(a: Delivery['attempts'][number]) {
  const answer = a.response_status === null ? 'no answer' : `HTTP ${a.response_status}`;
  return html`<li>#${a.number} · ${when(a.started_at)} · ${answer} · ${a.duration_ms} ms${a.error ? html` · <span class="error-text">${a.error}</span>` : ''}</li>`;
}

/** The apps installed on the store and each app's recent webhook deliveries, with redelivery (issue 10; docs/webhooks.md). */
@Controller()
@UseFilters(MerchantPageFilter)
export class MerchantWebhooksController {
  constructor(
    private readonly sessions: MerchantSessionsService,
    private readonly repository: MerchantSessionsRepository,
    private readonly subscriptions: WebhooksRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly redelivery: DeliveriesService,
  ) {}

  @Get('/admin/apps')
  async apps(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const store = await this.sessions.storeOfHost(request);
    const session = await this.sessions.current(request, store);
    if (!session) return sendPage(reply, 401, signInNeededPage(store, '/admin/apps'));
    const apps = await this.repository.installedApps(store.id);
    const items = apps.map(
      (app) => html`<li><a href="/admin/apps/${app.id.toString()}/deliveries">${app.name}</a>
<span class="muted">${app.kind} · ${minimalScopeString(app.scopes.split(','))} · since ${when(formatInZone(app.createdAt, store.ianaTimezone))}</span></li>`,
    );
    return sendPage(
      reply,
      200,
      layout({
        title: 'Apps',
        storeName: store.name,
        signOut: { formToken: session.formToken },
        body: html`${nav()}<section class="card"><h1>Apps</h1>
<p class="muted">Open an app to see its webhook subscriptions and recent deliveries.</p>
${apps.length === 0 ? html`<p>No app is installed on this store yet.</p>` : html`<ul class="rows">${items}</ul>`}</section>`,
      }),
    );
  }

  @Get('/admin/apps/:appId/deliveries')
  async deliveriesPage(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('appId') rawAppId: string, @Query('redelivered') redelivered: unknown) {
    const store = await this.sessions.storeOfHost(request);
    const session = await this.sessions.current(request, store);
    if (!session) return sendPage(reply, 401, signInNeededPage(store, request.url));
    const app = await this.installed(store, rawAppId);
    const [subscriptions, rows] = await Promise.all([
      this.subscriptions.listForApp(store.id, app.id, SUBSCRIPTIONS_SHOWN),
      this.deliveries.recentForApp(store.id, app.id, RECENT_DELIVERIES),
    ]);
    const details = await this.deliveries.details(rows);
    const deliveries = rows.map((row) => deliveryJson(row, details, store.ianaTimezone));
    // The notice after a redelivery, only about a delivery of this page that is pending.
    const requeuedId = typeof redelivered === 'string' ? toId(redelivered) : undefined;
    const requeued = rows.find((row) => row.id === requeuedId && row.status === 'pending')?.id;
    const statusOf = new Map(subscriptions.map((s) => [s.id.toString(), s.status]));
    const subscriptionRows = subscriptions.map(
      (s) => html`<li><strong>${s.topic}</strong> <span class="state ${s.status === 'enabled' ? 'ok' : 'warn'}">${s.status}</span><br>
<code>${s.address}</code>${s.status === 'disabled' && s.disabledReason ? html`<br><span class="muted">Disabled: ${DISABLED_WORDS[s.disabledReason] ?? s.disabledReason}</span>` : ''}</li>`,
    );
    return sendPage(
      reply,
      200,
      layout({
        title: 'Deliveries',
        storeName: store.name,
        signOut: { formToken: session.formToken },
        body: html`${nav()}${
          requeued !== undefined
            ? html`<section class="card notice" role="status"><p>Delivery #${requeued.toString()} is pending again: it is sent shortly, with a fresh round of attempts.</p></section>`
            : ''
        }<section class="card"><h1>${app.name}</h1>
<h2>Webhook subscriptions</h2>
${subscriptions.length === 0 ? html`<p class="muted">This app has no webhook subscriptions on this store.</p>` : html`<ul class="rows">${subscriptionRows}</ul>`}
</section>
<section class="card"><h2>Recent deliveries</h2>
<p class="muted">The last ${RECENT_DELIVERIES}, newest first (times in ${store.ianaTimezone}).</p>
${deliveries.length === 0 ? html`<p>No deliveries yet.</p>` : deliveries.map((d) => this.deliveryCard(app, d, session, statusOf.get(d.subscription_id)))}
</section>`,
      }),
    );
  }

  /** The Redeliver button: a failed delivery back to pending (decisions §10), then back to the page. */
  @Post('/admin/apps/:appId/deliveries/:deliveryId/redeliver')
  async redeliver(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('appId') rawAppId: string, @Param('deliveryId') rawId: string) {
    const store = await this.sessions.storeOfHost(request);
    const session = await this.sessions.current(request, store);
    const pagePath = `/admin/apps/${encodeURIComponent(rawAppId)}/deliveries`;
    if (!session) return sendPage(reply, 401, signInNeededPage(store, pagePath));
    this.sessions.checkForm(request, session, (request.body as Record<string, string> | undefined)?.form_token);
    const app = await this.installed(store, rawAppId);
    const id = pathId(rawId);
    // Another app's delivery is not on this app's page: the same 404 as an unknown id.
    if ((await this.deliveries.appOf(store.id, id)) !== app.id) throw new DomainError('NOT_FOUND', 'Delivery not found');
    try {
      await this.redelivery.redeliver(store.handle, id.toString());
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'VALIDATION_FAILED') throw error;
      // A delivery that is not failed (any more), or whose subscription is off: a notice, not an error.
      return sendPage(
        reply,
        422,
        layout({
          title: 'Not redelivered',
          storeName: store.name,
          signOut: { formToken: session.formToken },
          body: html`<section class="card error"><h1>Not redelivered</h1><p>Delivery #${id.toString()} was not redelivered: ${error.message.replace(/^[a-z_]+: /, '')}.</p>
<div class="actions"><a class="button primary" href="/admin/apps/${app.id.toString()}/deliveries">Back to the deliveries</a></div></section>`,
        }),
      );
    }
    void reply.code(303).header('location', `/admin/apps/${app.id.toString()}/deliveries?redelivered=${id.toString()}`).header('cache-control', 'no-store').send();
  }

  /** An app installed on this store; any other id (unknown, another store's app) is a 404 page. */
  private async installed(store: StoreRecord, rawAppId: string): Promise<InstalledApp> {
    const app = await this.repository.installedApp(store.id, pathId(rawAppId));
    if (!app) throw new DomainError('NOT_FOUND', 'App not found');
    return app;
  }

  /** `subscriptionStatus`: undefined when the subscription is not among those listed on the page. */
  private deliveryCard(app: InstalledApp, d: Delivery, session: MerchantSession, subscriptionStatus: string | undefined) {
    return html`<article class="item delivery-${d.status}">
<h3>#${d.id} ${d.topic} <span class="state ${d.status === 'delivered' ? 'ok' : d.status === 'failed' ? 'bad' : 'warn'}">${d.status}</span></h3>
<dl>
<dt>Webhook id</dt><dd><code>${d.webhook_id}</code></dd>
<dt>Address</dt><dd>${d.address ?? html`<span class="muted">(subscription removed)</span>`}</dd>
<dt>Attempts</dt><dd>${d.attempt_count}</dd>
${d.status === 'pending' ? html`<dt>Next attempt</dt><dd>${when(d.next_attempt_at)}</dd>` : ''}
${d.delivered_at ? html`<dt>Delivered</dt><dd>${when(d.delivered_at)}</dd>` : ''}
${d.last_error ? html`<dt>Last error</dt><dd class="error-text">${d.last_error}</dd>` : ''}
</dl>
${d.attempts.length > 0 ? html`<ol class="attempts">${d.attempts.map(attemptLine)}</ol>` : ''}
${
  d.status === 'failed' && (d.address === null || subscriptionStatus === 'disabled')
    ? html`<p class="muted">${d.address === null ? 'Its subscription was removed: nothing to redeliver to.' : 'Its subscription is disabled: the app re-enables it before a redelivery.'}</p>`
    : d.status === 'failed'
    ? html`<form method="post" action="/admin/apps/${app.id.toString()}/deliveries/${d.id}/redeliver" class="inline"><input type="hidden" name="form_token" value="${session.formToken}"><button type="submit" class="primary">Redeliver</button></form>`
    : ''
}
</article>`;
  }
}
