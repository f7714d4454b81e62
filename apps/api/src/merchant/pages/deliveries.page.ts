import type { WebhookSubscription } from '@platform/db';
import type { deliveryJson } from '../../webhooks/deliveries.service';
import type { InstalledApp } from '../merchant.read-model';
import type { MerchantContext } from '../merchant-session.guard';
import { adminPage, formToken, html, when, type Html } from '../merchant-page';
import { DISABLED_WORDS } from './apps.page';
import { notice } from './parts';

type Delivery = ReturnType<typeof deliveryJson>;

export interface DeliveriesView {
  app: InstalledApp;
  subscriptions: WebhookSubscription[];
  deliveries: Delivery[];
  /** How many the page shows at most (the newest). */
  shown: number;
  /** A delivery of this page just made pending again (`?redelivered=`). */
  requeued: bigint | undefined;
}

function attemptLine(a: Delivery['attempts'][number]) {
  const answer = a.response_status === null ? 'no answer' : `HTTP ${a.response_status}`;
  return html`<li>#${a.number} · ${when(a.started_at)} · ${answer} · ${a.duration_ms} ms${a.error ? html` · <span class="error-text">${a.error}</span>` : ''}</li>`;
}

/** An app's webhook subscriptions and its newest deliveries with their attempts, and Redeliver on a failed one (issue 10). */
export function deliveriesPage(ctx: MerchantContext, view: DeliveriesView): Html {
  const { app, subscriptions } = view;
  const statusOf = new Map(subscriptions.map((s) => [s.id.toString(), s.status]));
  const subscriptionRows = subscriptions.map(
    (s) => html`<li><strong>${s.topic}</strong> <span class="state ${s.status === 'enabled' ? 'ok' : ''}">${s.status}</span><br>
<code>${s.address}</code>${s.status === 'disabled' && s.disabledReason ? html`<br><span class="muted">Disabled: ${DISABLED_WORDS[s.disabledReason] ?? s.disabledReason}</span>` : ''}</li>`,
  );
  return adminPage(ctx, {
    title: 'Deliveries',
    section: 'apps',
    body: html`${
      view.requeued !== undefined
        ? notice(`Delivery #${view.requeued.toString()} is pending again: it is sent shortly, with a fresh round of attempts.`)
        : ''
    }<section class="card"><h1>${app.name}</h1>
<h2>Webhook subscriptions</h2>
${subscriptions.length === 0 ? html`<p class="muted">This app has no webhook subscriptions on this store.</p>` : html`<ul class="rows">${subscriptionRows}</ul>`}
</section>
<section class="card"><h2>Recent deliveries</h2>
<p class="muted">The last ${view.shown}, newest first (times in ${ctx.store.ianaTimezone}).</p>
${view.deliveries.length === 0 ? html`<p>No deliveries yet.</p>` : view.deliveries.map((d) => deliveryCard(ctx, app, d, statusOf.get(d.subscription_id)))}
</section>`,
  });
}

/** `subscriptionStatus`: undefined when the subscription is not among those listed on the page. */
function deliveryCard(ctx: MerchantContext, app: InstalledApp, d: Delivery, subscriptionStatus: string | undefined) {
  return html`<article class="item delivery-${d.status}">
<h3>#${d.id} ${d.topic} <span class="state ${d.status === 'delivered' ? 'ok' : d.status === 'failed' ? 'bad' : ''}">${d.status}</span></h3>
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
      ? html`<form method="post" action="/admin/apps/${app.id.toString()}/deliveries/${d.id}/redeliver" class="inline">${formToken(ctx)}<button type="submit" class="primary">Redeliver</button></form>`
      : ''
}
</article>`;
}

/** A delivery that cannot be redelivered (not failed, or its subscription is off): a notice with a way back (422). */
export function notRedeliveredPage(ctx: MerchantContext, app: InstalledApp, id: bigint, reason: string): Html {
  return adminPage(ctx, {
    title: 'Not redelivered',
    section: 'apps',
    body: html`<section class="card error"><h1>Not redelivered</h1><p>Delivery #${id.toString()} was not redelivered: ${reason}.</p>
<div class="actions"><a class="button primary" href="/admin/apps/${app.id.toString()}/deliveries">Back to the deliveries</a></div></section>`,
  });
}
